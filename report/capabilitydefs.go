package report

// The catalog rows of the capabilities, each read through its
// capability's metrics embedded in Metrics (nil: the row is null), and
// each optional: present in a report when some run is of the capability.
// defs (catalog.go) places them among the core rows.

// NeedsCluster: the cluster metrics exist only for runs of the cluster
// target (target.program cluster: the acted-on replica logged fork
// events).
const NeedsCluster Need = "cluster"

// isClusterRun is the presence test of the cluster metric rows.
func isClusterRun(m *Metrics) bool { return m.ClusterMetrics != nil }

// clusterDef is one cluster metric row: optional, present in cluster runs.
func clusterDef(name string, k Kind, null string, cmp Comparison, doc string, get func(*ClusterMetrics) Value) MetricDef {
	return MetricDef{Name: name, Kind: k, Null: null, Compare: cmp, Optional: NeedsCluster, present: isClusterRun, Doc: doc,
		get: func(m *Metrics) Value {
			if m.ClusterMetrics == nil {
				return Value{Null: true}
			}
			return get(m.ClusterMetrics)
		}}
}

// clusterDefs are the cluster metric rows, after the probe rows.
var clusterDefs = []MetricDef{
	clusterDef("forks_after_signal", KindCount, "n/a (no signal logged)", CompareLoss, "cluster: workers forked at or after the primary's first signal",
		func(c *ClusterMetrics) Value { return intP(c.ForksAfterSignal) }),
	clusterDef("crashes", KindCount, "", CompareNone, "cluster: worker exits before the first signal",
		func(c *ClusterMetrics) Value { return intV(c.Crashes) }),
	clusterDef("resurrection_ms", KindMs, "n/a", CompareLatency, "cluster: slowest crash's worker_exit to the next fork",
		func(c *ClusterMetrics) Value {
			if c.ResurrectionMs == nil && c.Crashes > 0 {
				return Value{Null: true, Why: "NEVER"}
			}
			return floatP(c.ResurrectionMs)
		}),
	clusterDef("worker_exits", KindCount, "", CompareNone, "cluster: worker_exit events",
		func(c *ClusterMetrics) Value { return intV(c.WorkerExits) }),
	clusterDef("worker_exits_code_0", KindCount, "", CompareNone, "cluster: workers that exited with code 0",
		func(c *ClusterMetrics) Value { return intV(c.WorkerExitsCode0) }),
	clusterDef("worker_exits_code_other", KindCount, "", CompareNone, "cluster: workers that exited with another code",
		func(c *ClusterMetrics) Value { return intV(c.WorkerExitsCodeOther) }),
	clusterDef("worker_exits_sigkill", KindCount, "", CompareNone, "cluster: workers killed by SIGKILL",
		func(c *ClusterMetrics) Value { return intV(c.WorkerExitsSIGKILL) }),
	clusterDef("worker_exits_signal_other", KindCount, "", CompareNone, "cluster: workers killed by another signal",
		func(c *ClusterMetrics) Value { return intV(c.WorkerExitsSignalOther) }),
	clusterDef("forced_exit", KindBool, "", CompareNone, "cluster: the primary logged forced_exit (teardown timeout)",
		func(c *ClusterMetrics) Value { return boolV(c.ForcedExit) }),
	clusterDef("forced_exit_ms", KindMs, "none", CompareNone, "cluster: forced_exit's ms since the signal",
		func(c *ClusterMetrics) Value { return floatP(c.ForcedExitMs) }),
	clusterDef("ended_by_self", KindBool, "NEVER", CompareNone, "cluster: exited with the code of its own exit event",
		func(c *ClusterMetrics) Value { return boolP(c.EndedBySelf) }),
	clusterDef("ended_by_engine_kill", KindBool, "NEVER", CompareNone, "cluster: exit 137 after the engine's SIGKILL, no exit event",
		func(c *ClusterMetrics) Value { return boolP(c.EndedByEngineKill) }),
	clusterDef("severed_at_kill", KindCount, "n/a (not killed)", CompareLoss, "cluster: failed requests open across the kill",
		func(c *ClusterMetrics) Value { return intP(c.SeveredAtKill) }),
}

// NeedsRollout: the rollout metrics exist only for runs of platform swarm
// whose action rolled the service (Meta.Rollout).
const NeedsRollout Need = "rollout"

// isRolloutRun is the presence test of the rollout metric rows.
func isRolloutRun(m *Metrics) bool { return m.RolloutMetrics != nil }

// rolloutDef is one rollout metric row: optional, present in rollout runs.
func rolloutDef(name string, k Kind, null string, cmp Comparison, doc string, get func(*RolloutMetrics) Value) MetricDef {
	return MetricDef{Name: name, Kind: k, Null: null, Compare: cmp, Optional: NeedsRollout, present: isRolloutRun, Doc: doc,
		get: func(m *Metrics) Value {
			if m.RolloutMetrics == nil {
				return Value{Null: true}
			}
			return get(m.RolloutMetrics)
		}}
}

// rolloutDefs are the rollout metric rows.
var rolloutDefs = []MetricDef{
	rolloutDef("rollout_failed", KindCount, "", CompareLoss, "rollout: failed requests started at or after the service update was sent",
		func(r *RolloutMetrics) Value { return intV(r.RolloutFailed) }),
	rolloutDef("rollout_non2xx", KindCount, "", CompareLoss, "rollout: of rollout_failed, HTTP responses outside 2xx",
		func(r *RolloutMetrics) Value { return intV(r.RolloutNon2xx) }),
	rolloutDef("rollout_ms", KindMs, "NEVER", CompareLatency, "rollout: update sent to the last old task's exit or new task's healthy start (engine)",
		func(r *RolloutMetrics) Value { return floatP(r.RolloutMs) }),
	rolloutDef("rollout_converged", KindBool, "", CompareNone, "rollout: every new task ran and every old one ended within the bound",
		func(r *RolloutMetrics) Value { return boolV(r.RolloutConverged) }),
	rolloutDef("old_tasks_killed", KindCount, "", CompareLoss, "rollout: old tasks SIGKILLed at the end of their grace period",
		func(r *RolloutMetrics) Value { return intV(r.OldTasksKilled) }),
	rolloutDef("old_exit_code", KindCode, "NEVER", CompareCodes, "rollout: largest exit code of the old tasks",
		func(r *RolloutMetrics) Value { return intP(r.OldExitCode) }),
	rolloutDef("old_stop_to_exit_ms", KindMs, "n/a", CompareLatency, "rollout: slowest old task, stop signal to exit (engine events)",
		func(r *RolloutMetrics) Value { return floatP(r.OldStopToExitMs) }),
	rolloutDef("old_served_after_signal", KindCount, "n/a (no upstream header)", CompareNone, "rollout: ok requests old tasks served that started after their stop signal",
		func(r *RolloutMetrics) Value { return intP(r.OldServedAfterSignal) }),
	rolloutDef("task_restarts", KindCount, "", CompareLoss, "rollout: tasks beyond one old and one new per slot (Swarm replaced failed or unhealthy ones)",
		func(r *RolloutMetrics) Value { return intV(r.TaskRestarts) }),
	rolloutDef("unhealthy_events", KindCount, "", CompareNone, "rollout: the engine's health_status: unhealthy events",
		func(r *RolloutMetrics) Value { return intV(r.UnhealthyEvents) }),
	rolloutDef("failed_unattributed", KindCount, "", CompareNone, "rollout: of rollout_failed, requests that name no task (no upstream header)",
		func(r *RolloutMetrics) Value { return intV(r.FailedUnattributed) }),
}

// isProbeRun is the presence test of the probe metric rows.
func isProbeRun(m *Metrics) bool { return m.ProbeMetrics != nil }

// probeDefs are the probe metric rows, shown only when some run is a probe
// run (whatever their values: a socket never closed is a NEVER worth a row).
var probeDefs = []MetricDef{
	{Name: "probe_response_after_signal_ms", Kind: KindMs, Null: "n/a", Optional: NeedsProbe, present: isProbeRun, Doc: "probe: response end minus the signal time t",
		get: func(m *Metrics) Value {
			return probeFloat(m, func(p *ProbeMetrics) *float64 { return p.ProbeResponseAfterSignalMs })
		}},
	{Name: "probe_response_after_start_ms", Kind: KindMs, Null: "n/a", Optional: NeedsProbe, present: isProbeRun, Doc: "probe: response end minus the probe's load start",
		get: func(m *Metrics) Value {
			return probeFloat(m, func(p *ProbeMetrics) *float64 { return p.ProbeResponseAfterStartMs })
		}},
	{Name: "probe_response_keepalive", Kind: KindBool, Null: "no response", Optional: NeedsProbe, present: isProbeRun, Doc: "probe: the response's Connection header was not close",
		get: func(m *Metrics) Value {
			if m.ProbeMetrics == nil || m.ProbeResponseKeepalive == nil {
				return Value{Null: true}
			}
			return boolV(*m.ProbeResponseKeepalive)
		}},
	{Name: "probe_socket_closed_after_signal_ms", Kind: KindMs, Null: "NEVER", Optional: NeedsProbe, present: isProbeRun, Doc: "probe: socket closed by the server minus t (NEVER: not within max_wait)",
		get: func(m *Metrics) Value {
			return probeFloat(m, func(p *ProbeMetrics) *float64 { return p.ProbeSocketClosedAfterSignalMs })
		}},
	{Name: "probe_socket_closed_after_response_ms", Kind: KindMs, Null: "NEVER", Optional: NeedsProbe, present: isProbeRun, Doc: "probe: socket closed minus response end (idle time)",
		get: func(m *Metrics) Value {
			return probeFloat(m, func(p *ProbeMetrics) *float64 { return p.ProbeSocketClosedAfterResponseMs })
		}},
	{Name: "probe_server_closed", Kind: KindBool, Optional: NeedsProbe, present: isProbeRun, Doc: "probe: the server ended the socket (eof or reset)",
		get: func(m *Metrics) Value {
			if m.ProbeMetrics == nil {
				return Value{Null: true}
			}
			return boolV(m.ProbeServerClosed)
		}},
}

func probeFloat(m *Metrics, f func(*ProbeMetrics) *float64) Value {
	if m.ProbeMetrics == nil {
		return Value{Null: true}
	}
	return floatP(f(m.ProbeMetrics))
}

// NeedsResources: the resource metrics exist only for runs whose target
// processes were sampled (a local engine whose /proc this host shares;
// record.Meta.Resources says when they were not).
const NeedsResources Need = "resources"

// hasResources is the presence test of the resource metric rows.
func hasResources(m *Metrics) bool { return m.ResourceMetrics != nil }

// resourceDefs are the resource metric rows, shown only when some run has
// samples of its acted-on replica.
var resourceDefs = []MetricDef{
	{Name: "fds_at_signal", Kind: KindCount, Null: "n/a", Optional: NeedsResources, present: hasResources,
		Doc: "open fds of the acted-on replica's processes in the last sample at or before the signal",
		get: func(m *Metrics) Value {
			return resourceV(m, func(r *ResourceMetrics) Value { return intP(r.FDsAtSignal) })
		}},
	{Name: "fd_growth_per_abort", Kind: KindRatio, Null: "n/a", Optional: NeedsResources, present: hasResources,
		Doc: "(fds at load end, or at the action if before it, - fds at load start) / aborted requests ended by then",
		get: func(m *Metrics) Value {
			return resourceV(m, func(r *ResourceMetrics) Value { return floatP(r.FDGrowthPerAbort) })
		}},
	{Name: "peak_rss_bytes", Kind: KindCount, Null: "n/a", Optional: NeedsResources, present: hasResources,
		Doc: "largest resident memory total of the acted-on replica's processes",
		get: func(m *Metrics) Value {
			return resourceV(m, func(r *ResourceMetrics) Value { return intP(r.PeakRSSBytes) })
		}},
	{Name: "threads_at_signal", Kind: KindCount, Null: "n/a", Optional: NeedsResources, present: hasResources,
		Doc: "threads of the acted-on replica's processes in the last sample at or before the signal",
		get: func(m *Metrics) Value {
			return resourceV(m, func(r *ResourceMetrics) Value { return intP(r.ThreadsAtSignal) })
		}},
}

func resourceV(m *Metrics, f func(*ResourceMetrics) Value) Value {
	if m.ResourceMetrics == nil {
		return Value{Null: true, Why: "not sampled"}
	}
	return f(m.ResourceMetrics)
}
