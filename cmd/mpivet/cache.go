package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"mpivet/layer"
)

// cacheCmd is mpivet cache: what the layer cache holds, and its clean.
func cacheCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "show the layer cache: where it is, its builds, answers and size",
		Long: `Show the layer cache (the builds of mpivet's layer, one per MPI, compiler and
mpivet version, and the answers of its probes): where it is, how many entries
and how much space, how many builds a running mpivet uses, and the last trim.

A verification trims the cache at most once a day, in the background of its
run: it removes the builds and answers unused for 10 days, or for
MPIVET_CACHE_TRIM (an age: 3d, 36h). mpivet cache clean
removes all that no running mpivet uses. Only the cache's own names are
touched: other directories in it (scripts/lammps-omp's build, an unpacked
Open MPI) and links are left alone.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := layer.CacheDir()
			if err != nil {
				return err
			}
			u, last, err := layer.Inspect(dir)
			if err != nil {
				return err
			}
			printCache(cmd.OutOrStdout(), dir, u, last)
			return nil
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "clean",
		Short: "remove every layer build no running mpivet uses, and the leftovers",
		Long: `Remove from the layer cache every build of the layer that no running mpivet
uses or builds (each is locked while a process uses it), the answers of the
probes unused for a day (a verification in progress may read them), and
what killed builds and removals left (after an hour). The next verification
builds its layer again (a minute or two). Other files in the cache are left
alone.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := layer.CacheDir()
			if err != nil {
				return err
			}
			u, err := layer.Clean(cmd.Context(), dir)
			if err != nil {
				return fmt.Errorf("cleaning the layer cache %s: %v", dir, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed from %s: %s\n", dir, removed(u))
			return nil
		},
	})
	return cmd
}

// printCache prints what the cache in dir holds.
func printCache(w io.Writer, dir string, u layer.Usage, last time.Time) {
	fmt.Fprintln(w, dir)
	inUse := ""
	if u.InUse > 0 {
		inUse = fmt.Sprintf("  (%d in use)", u.InUse)
	}
	fmt.Fprintf(w, "%-14s %6d  %9s%s\n", "layer builds", u.Builds.N, sizeText(u.Builds.Bytes), inUse)
	fmt.Fprintf(w, "%-14s %6d  %9s\n", "probe answers", u.Answers.N, sizeText(u.Answers.Bytes))
	fmt.Fprintf(w, "%-14s %6d  %9s  (of killed builds and removals)\n", "leftovers", u.Leftovers.N, sizeText(u.Leftovers.Bytes))
	fmt.Fprintf(w, "%-14s %6s  %9s\n", "total", "", sizeText(u.Builds.Bytes+u.Answers.Bytes+u.Leftovers.Bytes))
	when := "never"
	if !last.IsZero() {
		when = last.UTC().Format("2006-01-02 15:04 UTC")
	}
	age, err := layer.TrimAge()
	limit := fmt.Sprintf("%d days", int(age.Hours()/24))
	if age%(24*time.Hour) != 0 {
		limit = age.String()
	}
	fmt.Fprintf(w, "last trim: %s (at most daily; removes what was unused for %s)\n", when, limit)
	if err != nil {
		fmt.Fprintln(w, err)
	}
	if len(u.Other) > 0 {
		fmt.Fprintf(w, "not the cache's, left alone: %s\n", strings.Join(u.Other, ", "))
	}
}

// removed says what a clean removed.
func removed(u layer.Usage) string {
	s := fmt.Sprintf("%d layer builds (%s), %d probe answers (%s), %d leftovers (%s)",
		u.Builds.N, sizeText(u.Builds.Bytes), u.Answers.N, sizeText(u.Answers.Bytes), u.Leftovers.N, sizeText(u.Leftovers.Bytes))
	if u.InUse > 0 {
		s += fmt.Sprintf("; kept %d in use", u.InUse)
	}
	return s
}

// sizeText is a size for people: B, kB, MB, GB (powers of 1000).
func sizeText(n int64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	f, i := float64(n), 0
	for f >= 1000 && i < len(units)-1 {
		f /= 1000
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}
