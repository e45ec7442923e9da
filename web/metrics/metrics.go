// Package metrics turns the server's activity into Prometheus metrics: requests per Connect
// procedure and code, plain endpoints per route, the writer's batches and syncs, the hub and its
// streams, and Badger's sizes, next to the Go runtime and process collectors. It uses a registry
// of its own (never the global one), and its labels name procedures, routes and codes only:
// no member, channel or message ever appears in a metric.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"hearth/engine"
)

// Metrics is one server's registry and the collectors fed by the HTTP surface and the writer.
type Metrics struct {
	reg *prometheus.Registry

	rpcRequests  *prometheus.CounterVec
	rpcDuration  *prometheus.HistogramVec
	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec

	batchChanges  prometheus.Histogram
	batchEvents   prometheus.Histogram
	applyDuration prometheus.Histogram
	syncDuration  prometheus.Histogram
	commitErrors  prometheus.Counter

	streamsEnded  *prometheus.CounterVec
	buildInfo     *prometheus.GaugeVec
	backups       *prometheus.CounterVec
	backupSuccess prometheus.Gauge
	backupBytes   prometheus.Gauge
	push          pushMetrics
	digests       *prometheus.CounterVec
}

// latencyBuckets run from half a millisecond to 8 s: a call here takes a few milliseconds, a
// sync one or two, and anything past seconds is an outage.
var latencyBuckets = prometheus.ExponentialBuckets(0.0005, 2, 15)

// New makes the registry with the Go and process collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		rpcRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_rpc_requests_total",
			Help: "Connect, gRPC and gRPC-Web calls by procedure and code, counted when they end (streams too).",
		}, []string{"procedure", "code"}),
		rpcDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hearth_rpc_duration_seconds",
			Help:    "Time to answer a unary call, by procedure.",
			Buckets: latencyBuckets,
		}, []string{"procedure"}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_http_requests_total",
			Help: "Requests to the plain HTTP endpoints by route pattern and status.",
		}, []string{"route", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hearth_http_duration_seconds",
			Help:    "Time to answer a plain HTTP request, by route pattern.",
			Buckets: latencyBuckets,
		}, []string{"route"}),
		batchChanges: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hearth_writer_batch_changes",
			Help:    "Changes committed together in one transaction with one sync.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 10),
		}),
		batchEvents: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hearth_writer_batch_events",
			Help:    "Logged events appended by one committed batch.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 11),
		}),
		applyDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hearth_writer_apply_seconds",
			Help:    "Time the writer spent running the changes of one batch, before its commit.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 16),
		}),
		syncDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hearth_writer_commit_seconds",
			Help:    "Time one batch's commit took: Badger's write and the fsync.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 15),
		}),
		commitErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hearth_writer_commit_errors_total",
			Help: "Commits that failed (the writer retries the batch in halves).",
		}),
		streamsEnded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_subscribe_streams_ended_total",
			Help: "Subscribe streams by how they ended: client_closed, shutdown, resync, member_left, stream_cap, token_expired, slow_consumer or error.",
		}, []string{"reason"}),
		buildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "hearth_build_info",
			Help: "Always 1: the server's version and its release track.",
		}, []string{"version", "track"}),
		backups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_backups_total",
			Help: "Backups written to the backup destination (scheduled or asked for), by result: ok or failed.",
		}, []string{"result"}),
		backupSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "hearth_backup_last_success_timestamp_seconds",
			Help: "When the last backup to the backup destination finished (Unix time; 0 before the first).",
		}),
		backupBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "hearth_backup_last_bytes",
			Help: "Size of the last backup written to the backup destination.",
		}),
	}
	for _, r := range engine.StreamEnds {
		m.streamsEnded.WithLabelValues(string(r))
	}
	m.backups.WithLabelValues("ok")
	m.backups.WithLabelValues("failed")
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.rpcRequests, m.rpcDuration, m.httpRequests, m.httpDuration,
		m.batchChanges, m.batchEvents, m.applyDuration, m.syncDuration, m.commitErrors,
		m.streamsEnded, m.buildInfo, m.backups, m.backupSuccess, m.backupBytes,
	)
	m.push = newPushMetrics(m.reg)
	m.digests = newDigestMetrics(m.reg)
	return m
}

// BuildInfo sets hearth_build_info for the running build.
func (m *Metrics) BuildInfo(version, track string) {
	m.buildInfo.Reset()
	m.buildInfo.WithLabelValues(version, track).Set(1)
}

// StreamEnded implements engine.StreamObserver.
func (m *Metrics) StreamEnded(why engine.StreamEnd) {
	m.streamsEnded.WithLabelValues(string(why)).Inc()
}

// BackupDone counts a backup written to the backup destination, or one that failed.
func (m *Metrics) BackupDone(at time.Time, bytes int64, err error) {
	if err != nil {
		m.backups.WithLabelValues("failed").Inc()
		return
	}
	m.backups.WithLabelValues("ok").Inc()
	m.backupSuccess.Set(float64(at.Unix()))
	m.backupBytes.Set(float64(bytes))
}

// Watch adds the collector that reads the engine's Stats at every scrape.
func (m *Metrics) Watch(stats func() engine.Stats) {
	m.reg.MustRegister(engineCollector{stats})
}

// Committed implements engine.Observer.
func (m *Metrics) Committed(c engine.Commit) {
	if c.Failed {
		m.commitErrors.Inc()
		return
	}
	m.batchChanges.Observe(float64(c.Changes))
	m.batchEvents.Observe(float64(c.Events))
	m.applyDuration.Observe(c.Apply.Seconds())
	m.syncDuration.Observe(c.Sync.Seconds())
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is the registry, for tests and for whoever wants to add to it.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }
