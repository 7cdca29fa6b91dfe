// Package resultdir owns the layout of shutdownlab's result directories:
// the name of every file in them, how the directories are named, and how
// their files are written (atomically) and read back. The runner writes
// through it, report and cmd/shutdownlab read through it; nothing else
// spells a file name of a result directory.
//
// A scenario run is one result directory, <root>/<timestamp>-<scenario>/:
//
//	scenario.yaml  variants.json  effective.json      (how it ran)
//	summary.json  report.md  report.csv  spread.csv   (report/document.Write)
//	failures.png  verdict.txt (check only)
//	<variant-slug>/run-NNN/                            (one per repetition)
//	    events.json  records.jsonl[.gz]  agent.log
//	    app-<replica>.log  <replica>-ledger.log  <replica>-job.log
//	    proxy.json  proxy.log (topology caddy)  latency.png
//
// It imports nothing of ours, so report can use it and still rebuild a
// report from disk without Docker.
package resultdir
