package main

import (
	"bytes"
	"fmt"

	"mpivet/api"
)

// formatConsts are the constants of the record format, the state page and
// the meta records that the layer (C) and the Go side share. api/api.go
// defines them; genFormat writes them into generated/format.h, so that
// neither side keeps a copy.
var formatConsts = []struct {
	group string
	names []string
	vals  []uint64
}{
	{"Record kinds (api.Kind*)",
		[]string{"KIND_ENTRY", "KIND_EXIT", "KIND_META", "KIND_BRIEF", "KIND_REPEAT"},
		[]uint64{api.KindEntry, api.KindExit, api.KindMeta, api.KindBrief, api.KindRepeat}},
	{"Words of a KIND_REPEAT record (api.Repeat*)",
		[]string{"REPEAT_LEN", "REPEAT_VIRTUAL", "REPEAT_RECORDS", "REPEAT_CALLS", "REPEAT_COUNT", "REPEAT_WORDS", "REPEAT_SHIFT"},
		[]uint64{api.RepeatLen, api.RepeatVirtual, api.RepeatRecords, api.RepeatCalls, api.RepeatCount, api.RepeatWords, api.RepeatShift}},
	{"Meta record ids (api.Meta*)",
		[]string{"META_PROCESS", "META_CONSTANTS", "META_MAPS", "META_SIGNAL", "META_OVERFLOW", "META_COMM", "META_ERROR",
			"META_BUFFER", "META_CLOCKS", "META_WILDCARD", "META_MATCHED", "META_LATE", "META_CHOICE", "META_ARRIVAL",
			"META_TYPES", "META_COLL", "META_WATCH", "META_UNRECEIVED", "META_DIVERGED", "META_DETERMINISM", "META_PYSITE", "META_ARGUMENT", "META_RMA", "META_RMA_VALUE",
			"META_THREAD_LEVEL", "META_FILE", "META_VIEW", "META_FILE_ERROR", "META_DECLARED", "META_HEAP", "META_HELD"},
		[]uint64{api.MetaProcess, api.MetaConstants, api.MetaMaps, api.MetaSignal, api.MetaOverflow, api.MetaComm, api.MetaError,
			api.MetaBuffer, api.MetaClocks, api.MetaWildcard, api.MetaMatched, api.MetaLate, api.MetaChoice, api.MetaArrival,
			api.MetaTypes, api.MetaColl, api.MetaWatch, api.MetaUnreceived, api.MetaDiverged, api.MetaDeterminism, api.MetaPySite, api.MetaArgument, api.MetaRMA, api.MetaRMAValue,
			api.MetaThreadLevel, api.MetaFile, api.MetaView, api.MetaFileError, api.MetaDeclared, api.MetaHeap, api.MetaHeld}},
	{"What a META_HEAP record says (api.Heap*)",
		[]string{"HEAP_OVERRUN", "HEAP_FREED", "HEAP_FREE_PENDING", "HEAP_GLOBAL", "HEAP_FREE_WINDOW"},
		[]uint64{api.HeapOverrun, api.HeapFreed, api.HeapFreePending, api.HeapGlobal, api.HeapFreeWindow}},
	{"State page status of a deterministic wait (api.StatusDeciding)",
		[]string{"STATUS_DECIDING"},
		[]uint64{api.StatusDeciding}},
	{"State page statuses of a thread that ended, or waits in pthread_join (api.StatusEnded, api.StatusJoining)",
		[]string{"STATUS_ENDED", "STATUS_JOINING"},
		[]uint64{api.StatusEnded, api.StatusJoining}},
	{"State page words (api.State*)",
		[]string{"STATE_SEQ", "STATE_STATUS", "STATE_LOGREF", "STATE_RC", "STATE_PROGRESS", "STATE_RECORD", "STATE_POLLS",
			"STATE_WORDS", "STATE_SLOTS", "STATE_THREADS", "STATE_LIBRARY", "STATE_LIBRARY_MAX", "STATE_FILE_WORDS"},
		[]uint64{api.StateSeq, api.StateStatus, api.StateLogRef, api.StateRC, api.StateProgress, api.StateRecord, api.StatePolls,
			api.StateWords, api.StateSlots, api.StateThreads, api.StateLibrary, api.StateLibraryMax, api.StateFileWords}},
	{"Buffer access kinds of META_BUFFER (api.Access*)",
		[]string{"ACCESS_WRITE_SEND", "ACCESS_READ_RECV", "ACCESS_WRITE_RECV", "ACCESS_OVERLAP", "ACCESS_WINDOW_WRITE_SEND",
			"ACCESS_WINDOW_WRITE_RECV", "ACCESS_TARGET_LOAD", "ACCESS_TARGET_STORE", "ACCESS_PASSIVE_LOAD", "ACCESS_PASSIVE_STORE"},
		[]uint64{api.AccessWriteSend, api.AccessReadRecv, api.AccessWriteRecv, api.AccessOverlap, api.AccessWindowWriteSend,
			api.AccessWindowWriteRecv, api.AccessTargetLoad, api.AccessTargetStore, api.AccessPassiveLoad, api.AccessPassiveStore}},
	{"Basic type classes of a signature word (api.Sig*)",
		[]string{"SIG_BYTE", "SIG_PACKED", "SIG_CHAR", "SIG_INT", "SIG_UINT", "SIG_FLOAT", "SIG_COMPLEX", "SIG_BOOL",
			"SIG_LOGICAL", "SIG_WCHAR", "SIG_PAIR"},
		[]uint64{api.SigByte, api.SigPacked, api.SigChar, api.SigInt, api.SigUint, api.SigFloat, api.SigComplex, api.SigBool,
			api.SigLogical, api.SigWchar, api.SigPair}},
	{"Flags of a META_COLL record (api.Coll*)",
		[]string{"COLL_SEND", "COLL_RECV", "COLL_TOTALS", "COLL_NOCOUNT"},
		[]uint64{api.CollSend, api.CollRecv, api.CollTotals, api.CollNoCount}},
	{"Rules an argument breaks, in META_ARGUMENT (api.Arg*)",
		[]string{"ARG_RANK", "ARG_ROOT", "ARG_COUNT", "ARG_TYPE_NULL", "ARG_TYPE_UNCOMMITTED", "ARG_TYPE_FREED", "ARG_COMM_NULL",
			"ARG_COMM_FREED", "ARG_TAG", "ARG_OP_NULL", "ARG_OP_FREED", "ARG_OP_TYPE", "ARG_BUFFER_NULL", "ARG_OVERLAP", "ARG_IN_PLACE",
			"ARG_OFFSET", "ARG_AMODE", "ARG_FILE_NULL", "ARG_FILE_CLOSED", "ARG_ASSERT", "ARG_WIN_BASE",
			"ARG_TYPE_ARG", "ARG_TYPE_FREE_PREDEF", "ARG_TYPE_OVERLAP"},
		[]uint64{api.ArgRank, api.ArgRoot, api.ArgCount, api.ArgTypeNull, api.ArgTypeUncommitted, api.ArgTypeFreed, api.ArgCommNull,
			api.ArgCommFreed, api.ArgTag, api.ArgOpNull, api.ArgOpFreed, api.ArgOpType, api.ArgBufferNull, api.ArgOverlap, api.ArgInPlace,
			api.ArgOffset, api.ArgAmode, api.ArgFileNull, api.ArgFileClosed, api.ArgAssert, api.ArgWinBase,
			api.ArgTypeArg, api.ArgTypeFreePredef, api.ArgTypeOverlap}},
	{"What is wrong with a datatype constructor's argument, the low byte of the limit of an ARG_TYPE_ARG record (api.TypeArg*)",
		[]string{"TYPEARG_NEGATIVE", "TYPEARG_POSITIVE", "TYPEARG_SUBSIZE", "TYPEARG_START", "TYPEARG_ORDER", "TYPEARG_RANK",
			"TYPEARG_DISTRIB", "TYPEARG_PSIZES", "TYPEARG_BLOCK"},
		[]uint64{api.TypeArgNegative, api.TypeArgPositive, api.TypeArgSubsize, api.TypeArgStart, api.TypeArgOrder, api.TypeArgRank,
			api.TypeArgDistrib, api.TypeArgPsizes, api.TypeArgBlock}},
	{"What is wrong with an access mode, the limit of an ARG_AMODE record (api.Amode*)",
		[]string{"AMODE_ACCESS", "AMODE_READ_CREATE", "AMODE_RDWR_SEQ"},
		[]uint64{api.AmodeAccess, api.AmodeReadCreate, api.AmodeRdwrSeq}},
	{"Objects whose life the argument checks follow, in mpivet_call_a_kind (api.Obj*)",
		[]string{"OBJ_COMM", "OBJ_DATATYPE", "OBJ_OP", "OBJ_FILE"},
		[]uint64{api.ObjComm, api.ObjDatatype, api.ObjOp, api.ObjFile}},
	{"Flags of mpivet_call_flags (api.Call*)",
		[]string{"CALL_COLL", "CALL_VSEND", "CALL_VRECV", "CALL_COLLINIT"},
		[]uint64{api.CallColl, api.CallVSend, api.CallVRecv, api.CallCollInit}},
	{"Wildcard event kinds of META_WILDCARD and of decisions (api.Wild*)",
		[]string{"WILD_RECV", "WILD_PROBE", "WILD_ANY", "WILD_BUFFER", "WILD_HOLD"},
		[]uint64{api.WildRecv, api.WildProbe, api.WildAny, api.WildBuffer, api.WildHold}},
	{"Clock modes of META_CLOCKS (api.Clocks*)",
		[]string{"CLOCKS_OFF", "CLOCKS_LAMPORT", "CLOCKS_VECTOR"},
		[]uint64{api.ClocksOff, api.ClocksLamport, api.ClocksVector}},
	{"Words of a META_RMA record after the entry offset (api.RMA*)",
		[]string{"RMA_TARGET_LB", "RMA_TARGET_SPAN", "RMA_ORIGIN_LB", "RMA_ORIGIN_SPAN", "RMA_WORDS"},
		[]uint64{api.RMATargetLB, api.RMATargetSpan, api.RMAOriginLB, api.RMAOriginSpan, api.RMAWords}},
	{"Thread flags of a META_SIGNAL record, in its first word's high half (api.Signal*)",
		[]string{"SIGNAL_KNOWN", "SIGNAL_MAIN", "SIGNAL_CALLED_MPI", "SIGNAL_LIBRARY", "SIGNAL_UNWOUND", "SIGNAL_SENT", "SIGNAL_HANDLED"},
		[]uint64{api.SignalKnown, api.SignalMain, api.SignalCalledMPI, api.SignalLibrary, api.SignalUnwound, api.SignalSent, api.SignalHandled}},
	{"Exit status of a rank whose replay diverged (api.ExitDiverged)",
		[]string{"EXIT_DIVERGED"},
		[]uint64{api.ExitDiverged}},
	{"Who a thread is (api.MetaThread, api.ThreadUnnamed)",
		[]string{"META_THREAD", "THREAD_UNNAMED"},
		[]uint64{api.MetaThread, api.ThreadUnnamed}},
}

// confKeys are the keys of layer.conf (api.Conf*), which Go writes and
// record/conf.c reads.
var confKeys = []struct{ name, key string }{
	{"BUFFERING", api.ConfBuffering}, {"BUFFERS", api.ConfBuffers}, {"CLOCKS", api.ConfClocks}, {"GDB", api.ConfGDB},
	{"HOST", api.ConfHost}, {"SYNC", api.ConfSync}, {"DECISIONS", api.ConfDecisions}, {"EXPECT", api.ConfExpect},
	{"VADER", api.ConfVader}, {"DETERMINISTIC", api.ConfDeterministic}, {"ARGUMENTS", api.ConfArguments},
	{"THREADS", api.ConfThreads}, {"WAIT", api.ConfWait}, {"FILES", api.ConfFiles},
	{"RECORDS", api.ConfRecords},
}

// genFormat writes generated/format.h.
func genFormat() []byte {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("/* Code generated by internal/gen from api/api.go. DO NOT EDIT. */\n\n")
	w("#ifndef MPIVET_FORMAT_H\n#define MPIVET_FORMAT_H\n")
	for _, g := range formatConsts {
		if len(g.names) != len(g.vals) {
			panic("gen: formatConsts: " + g.group)
		}
		w("\n/* %s */\n", g.group)
		for i, n := range g.names {
			w("#define MPIVET_%s %d\n", n, g.vals[i])
		}
	}
	w("\n/* A signature word of several basic types (api.SigMixed) */\n#define MPIVET_SIG_MIXED (1ULL << 63)\n")
	w("\n/* Keys of layer.conf (api.Conf*) */\n")
	for _, k := range confKeys {
		w("#define MPIVET_CONF_%s %q\n", k.name, k.key)
	}
	w("\n#endif\n")
	return b.Bytes()
}
