package reproduce

import (
	"strings"

	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// runtimeKey is the scenario key that selects the target's runtime.
const runtimeKey = "target.runtime"

// RunRuntime returns the runtime a run's target ran: its target.runtime
// parameter when the scenario varies it, else the first word of the
// acted-on replica's recorded runtime ("node v20.20.2" -> "node"); "" when
// neither says.
func RunRuntime(r *report.Run) string {
	if rt := r.Meta.Params[runtimeKey]; rt != "" {
		return rt
	}
	if i := shutdown.ActedReplica(r.Meta); i >= 0 {
		rt, _, _ := strings.Cut(r.Meta.Replicas[i].Runtime, " ")
		return rt
	}
	return ""
}

// RuntimeVersion returns the first recorded runtime-and-version of res's
// target ("node v20.20.2", "go go1.26.8"), "" when none is recorded.
func RuntimeVersion(res *report.Result) string {
	for _, v := range res.Variants {
		for _, r := range v.Runs {
			if i := shutdown.ActedReplica(r.Meta); i >= 0 && r.Meta.Replicas[i].Runtime != "" {
				return r.Meta.Replicas[i].Runtime
			}
		}
	}
	return ""
}

// ResultRuntime returns the runtime of a result's runs when they agree
// (see RunRuntime), else "".
func ResultRuntime(res *report.Result) string {
	rt := ""
	for _, v := range res.Variants {
		for i := range v.Runs {
			switch r := RunRuntime(&v.Runs[i]); {
			case r == "":
			case rt == "":
				rt = r
			case r != rt:
				return ""
			}
		}
	}
	return rt
}

// SplitRuntime returns the part of res that ran runtime rt: the variants
// whose runs ran it, relabelled without their runtime part
// ("runtime=node,mode=close" -> "mode=close"). Runs are shared with res,
// not copied. It returns nil when no variant ran rt.
func SplitRuntime(res *report.Result, rt string) *report.Result {
	out := *res
	out.Variants = nil
	for _, v := range res.Variants {
		if len(v.Runs) == 0 || RunRuntime(&v.Runs[0]) != rt {
			continue
		}
		v.Label = stripRuntime(v.Label)
		out.Variants = append(out.Variants, v)
	}
	if len(out.Variants) == 0 {
		return nil
	}
	return &out
}

// stripRuntime removes the runtime part of a variant label; "default" when
// nothing is left.
func stripRuntime(label string) string {
	var keep []string
	for _, p := range strings.Split(label, ",") {
		if strings.HasPrefix(p, "runtime=") || strings.HasPrefix(p, runtimeKey+"=") {
			continue
		}
		keep = append(keep, p)
	}
	if len(keep) == 0 {
		return "default"
	}
	return strings.Join(keep, ",")
}
