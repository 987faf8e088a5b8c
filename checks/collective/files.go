package collective

// MPI-IO: collectives on files. MPI_File_open is a collective on its
// communicator, compared with the communicator's other collectives; every
// other collective file call (MPI_File_set_view, MPI_File_write_all,
// MPI_File_close ... api tag fcoll) is on the file, a sequence of its own
// that the members of the communicator must make alike: the k-th file
// opened on a communicator is the same file on every member.

import (
	"fmt"

	"mpivet/check"
	"mpivet/trace"
)

// fileSeq is one open file of a rank: the key of its collectives'
// sequence, the members of its communicator, and its name for reports.
type fileSeq struct {
	key     string
	inter   bool
	members []int
	on      string
}

// opened notes the file an MPI_File_open that returned made: the n-th file
// the rank opened on the communicator of key.
func (s *rankStream) opened(c *trace.Call, key string, inter bool, members []int) {
	if c.Name() != "MPI_File_open" || !c.Returned || c.RC != 0 {
		return
	}
	n := s.opens[key]
	s.opens[key] = n + 1
	on := fmt.Sprintf("file number %d opened on %s", n+1, s.ix.Name(c.Word("comm")))
	if f := c.File(); f != nil {
		on = fmt.Sprintf("file %q (opened on %s)", f.Name, s.ix.Name(c.Word("comm")))
	}
	s.files[c.Word("fh")] = &fileSeq{key: fmt.Sprintf("%s/file %d", key, n), inter: inter, members: members, on: on}
}

// fileCall returns the open file a collective file call is on (nil: a
// file the rank was not seen opening); a close ends the file's sequence.
func (s *rankStream) fileCall(c *trace.Call) *fileSeq {
	fh := c.Word("fh")
	f := s.files[fh]
	if c.Name() == "MPI_File_close" && c.Returned && c.RC == 0 {
		delete(s.files, fh) // the MPI may give the handle to the next open
	}
	return f
}

// fileParts says what the members must give alike besides the call: an
// open's access mode and file name, a view's etype (its signature and
// size: the etype's extent in the file must be the same everywhere) and
// data representation (MPI 4.0 §14.2.1, §14.3). A view's displacement and
// filetype may differ, and so may the counts of data calls.
func fileParts(p *trace.Process, c *trace.Call, f *trace.File) (what, text []string) {
	if !f.View {
		what = []string{fmt.Sprintf("amode=%d", f.Amode), fmt.Sprintf("filename=%q", f.Name)}
		return what, []string{"amode=" + check.AmodeName(p, f.Amode), what[1]}
	}
	etype := check.HandleName(p, c.Word("etype"))
	what = []string{fmt.Sprintf("etype=%#x/%d", f.EtypeSig, f.EtypeSize), "datarep=" + f.Datarep}
	if f.EtypeSig == 0 { // not known: compared by size
		what[0] = fmt.Sprintf("etype=?/%d", f.EtypeSize)
	}
	text = []string{fmt.Sprintf("etype=%s (%d bytes)", etype, f.EtypeSize), "datarep=" + f.Datarep}
	return what, text
}
