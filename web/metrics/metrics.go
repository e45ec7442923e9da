// Package metrics turns the server's activity into Prometheus metrics: requests per Connect
// procedure and code, plain endpoints per route, the writer's batches and syncs, the hub and its
// streams, and Badger's sizes, next to the Go runtime and process collectors. It uses a registry
// of its own (never the global one), and its labels name procedures, routes and codes only:
// no member, channel or message ever appears in a metric.
package metrics

import (
	"net/http"

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
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.rpcRequests, m.rpcDuration, m.httpRequests, m.httpDuration,
		m.batchChanges, m.batchEvents, m.applyDuration, m.syncDuration, m.commitErrors,
	)
	return m
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
