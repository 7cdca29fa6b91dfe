package report

import (
	"github.com/shutdownlab/shutdownlab/report/clustermetrics"
	"github.com/shutdownlab/shutdownlab/report/jobsmetrics"
	"github.com/shutdownlab/shutdownlab/report/probemetrics"
	"github.com/shutdownlab/shutdownlab/report/resourcemetrics"
	"github.com/shutdownlab/shutdownlab/report/rolloutmetrics"
	"github.com/shutdownlab/shutdownlab/report/wsmetrics"
)

// The capabilities' metrics held by Metrics as parts (parts.go), each
// computed by its capability's package; the catalog defines their rows.
type (
	// ProbeMetrics are the metrics of a run of the raw-socket probe
	// (probemetrics.Metrics).
	ProbeMetrics = probemetrics.Metrics
	// ClusterMetrics are the supervisor metrics of a run of the Node
	// cluster target (clustermetrics.Metrics).
	ClusterMetrics = clustermetrics.Metrics
	// WSMetrics are the metrics of a WebSocket run (wsmetrics.Metrics).
	WSMetrics = wsmetrics.Metrics
	// JobsMetrics are the metrics of a run with a job ledger
	// (jobsmetrics.Metrics).
	JobsMetrics = jobsmetrics.Metrics
	// RolloutMetrics are the metrics of a run that rolled a Swarm service
	// (rolloutmetrics.Metrics).
	RolloutMetrics = rolloutmetrics.Metrics
	// ResourceMetrics are the metrics of a run whose acted-on replica was
	// sampled (resourcemetrics.Metrics).
	ResourceMetrics = resourcemetrics.Metrics
)

// Probe returns the run's probe metrics; nil outside a probe run.
func (m *Metrics) Probe() *ProbeMetrics { return partOf[ProbeMetrics](m, NeedsProbe) }

// Cluster returns the run's supervisor metrics; nil outside a run of the
// Node cluster target.
func (m *Metrics) Cluster() *ClusterMetrics { return partOf[ClusterMetrics](m, NeedsCluster) }

// WS returns the run's WebSocket metrics; nil outside a ws run.
func (m *Metrics) WS() *WSMetrics { return partOf[WSMetrics](m, NeedsWS) }

// Jobs returns the run's queue-job metrics; nil without a job ledger.
func (m *Metrics) Jobs() *JobsMetrics { return partOf[JobsMetrics](m, NeedsJobs) }

// Rollout returns the run's rollout metrics; nil unless it rolled a Swarm
// service.
func (m *Metrics) Rollout() *RolloutMetrics { return partOf[RolloutMetrics](m, NeedsRollout) }

// Resources returns the acted-on replica's resource metrics; nil without
// samples.
func (m *Metrics) Resources() *ResourceMetrics { return partOf[ResourceMetrics](m, NeedsResources) }
