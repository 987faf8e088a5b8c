package driver

import (
	"fmt"
	"time"

	"mpivet/explore"
	"mpivet/report"
	"mpivet/trace"
)

// The default budget: a verification ends on its own, by default within
// the larger of autoBudgetMin and autoBudgetRuns times the first run (the
// first run included), and never more than autoBudgetMax, whatever the
// program: a developer gets an answer in minutes, a long-running program
// still gets a couple of dozen replays, and one that runs for an hour
// natively gets an answer by the end of the afternoon. --budget sets
// another, --exhaustive none.
const (
	autoBudgetMin  = 2 * time.Minute
	autoBudgetRuns = 20
	autoBudgetMax  = 30 * time.Minute
)

// autoBudgetRule says how the default budget is chosen, for the report.
const autoBudgetRule = "the default: the larger of 2 minutes and 20 times the first run, at most 30 minutes; --budget or --exhaustive change it"

// AutoBudget is the default budget for a program whose first run took
// first.
func AutoBudget(first time.Duration) time.Duration {
	return min(autoBudgetMax, max(autoBudgetMin, autoBudgetRuns*first))
}

// givenBudget sets the budget given (--budget), which the first run
// started at start counts in; the default is set after it (setBudget).
func (x *exploration) givenBudget(start time.Time) {
	if x.o.Budget > 0 {
		x.budget, x.deadline = x.o.Budget, start.Add(x.o.Budget)
	}
}

// setBudget sets the verification's budget once the first run, which
// started at start, is over: the one given, none (--exhaustive), or the
// default.
func (x *exploration) setBudget(start time.Time) {
	switch {
	case x.o.Exhaustive:
		x.budget, x.deadline = 0, time.Time{}
	case x.o.Budget > 0:
		x.budget = x.o.Budget
	default:
		x.budget, x.budgetRule = AutoBudget(x.firstWall), autoBudgetRule
		x.deadline = start.Add(x.budget)
	}
}

// left is what is left of the budget (0: no budget).
func (x *exploration) left() time.Duration {
	if x.deadline.IsZero() {
		return 0
	}
	return max(time.Until(x.deadline), time.Nanosecond)
}

// budgetName names the budget in a stop's reason.
func (x *exploration) budgetName() string {
	if x.budgetRule != "" {
		return fmt.Sprintf("%s, %s", x.budget.Round(time.Second), x.budgetRule)
	}
	return x.budget.String()
}

// bounds are the bounds the exploration runs within, for the report.
func (x *exploration) bounds(maxInterleavings int) *report.Bounds {
	return &report.Bounds{MixingBound: x.o.MixingBound, OrderBound: x.o.OrderBound, CompletionOrders: x.o.CompletionOrders,
		Explore: x.o.Explore, MaxInterleavings: maxInterleavings, Budget: x.budget.Seconds(), BudgetRule: x.budgetRule}
}

// siteKinds name the kinds of nondeterministic events in reports.
var siteKinds = map[int]string{trace.WildRecv: "wildcard receive", trace.WildProbe: "wildcard probe", trace.WildAny: "completion order"}

// sites is the coverage of each nondeterministic call site, placed in the
// source where the symbols allow.
func (x *exploration) sites(st []explore.SiteStats) []report.Site {
	var out []report.Site
	for _, s := range st {
		loc := x.where(s.Maps, s.PC)
		if loc == "" {
			loc = s.Key
		}
		rs := report.Site{Location: loc, Call: s.Call, Kind: siteKinds[s.Kind], Ranks: s.Ranks, Events: s.Events, Run: s.Run,
			Unchecked: s.Unchecked, Known: s.Queued, Bounded: s.Pruned, Equivalent: s.Equivalent,
			NotReplayable: s.NotReplayable, Library: s.Library}
		if rs.Call == "" {
			rs.Call = "(" + rs.Kind + ")" // a poll's record is brief: the call is not known
		}
		if s.Space != nil {
			rs.Space, rs.SpaceNote = s.Space.String(), "orders of the messages matched"
			switch {
			case s.Kind == trace.WildAny:
				rs.SpaceNote = "completion orders at most"
			case s.SpaceBound:
				rs.SpaceNote = "outcomes at most"
			}
		}
		out = append(out, rs)
	}
	return out
}
