package metrics

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"hearth/engine"
)

// engineCollector reports the engine's Stats as they are at each scrape.
type engineCollector struct {
	stats func() engine.Stats
}

var (
	seqDesc        = prometheus.NewDesc("hearth_event_seq", "Seq of the newest committed event.", nil, nil)
	queueDesc      = prometheus.NewDesc("hearth_writer_queue_depth", "Changes waiting for the writer.", nil, nil)
	queueCapDesc   = prometheus.NewDesc("hearth_writer_queue_capacity", "Changes that may wait for the writer before callers block.", nil, nil)
	streamsDesc    = prometheus.NewDesc("hearth_subscribe_streams", "Open Subscribe streams.", nil, nil)
	headDesc       = prometheus.NewDesc("hearth_hub_published_total", "Events (logged and ephemeral) the hub has published since start: its ring position.", nil, nil)
	ringDesc       = prometheus.NewDesc("hearth_hub_ring_size", "Events the hub's ring holds; a stream further behind gets resync.", nil, nil)
	lagDesc        = prometheus.NewDesc("hearth_hub_stream_lag_events", "How many published events each follower of the hub (each live stream, the notifier, the plugins) has not read yet.", nil, nil)
	lagMaxDesc     = prometheus.NewDesc("hearth_hub_stream_lag_max_events", "The largest lag of any follower of the hub.", nil, nil)
	lsmDesc        = prometheus.NewDesc("hearth_badger_lsm_bytes", "Size of Badger's LSM tree on disk.", nil, nil)
	vlogDesc       = prometheus.NewDesc("hearth_badger_vlog_bytes", "Size of Badger's value log on disk.", nil, nil)
	diskFreeDesc   = prometheus.NewDesc("hearth_disk_free_bytes", "Free space of the data directory's disk (what the server may still write); 0 when it cannot be read.", nil, nil)
	diskNeedDesc   = prometheus.NewDesc("hearth_disk_full_threshold_bytes", "Free space below which the data disk counts as full and writes are refused.", nil, nil)
	lagUpperBounds = []float64{0, 1, 4, 16, 64, 256, 1024, 4096, 8192}
)

func (c engineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{seqDesc, queueDesc, queueCapDesc, streamsDesc, headDesc, ringDesc, lagDesc, lagMaxDesc, lsmDesc, vlogDesc, diskFreeDesc, diskNeedDesc} {
		ch <- d
	}
}

func (c engineCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	gauge(seqDesc, float64(s.Seq))
	gauge(queueDesc, float64(s.WriterQueue))
	gauge(queueCapDesc, float64(s.WriterQueueCap))
	gauge(streamsDesc, float64(s.Streams))
	ch <- prometheus.MustNewConstMetric(headDesc, prometheus.CounterValue, float64(s.HubHead))
	gauge(ringDesc, float64(s.HubRing))
	count, sum, buckets := lagHistogram(s.StreamLags)
	ch <- prometheus.MustNewConstHistogram(lagDesc, count, sum, buckets)
	gauge(lagMaxDesc, float64(slices.Max(append(s.StreamLags, 0))))
	gauge(lsmDesc, float64(s.LSMBytes))
	gauge(vlogDesc, float64(s.VlogBytes))
	gauge(diskFreeDesc, float64(s.DiskFree))
	gauge(diskNeedDesc, float64(s.DiskThreshold))
}

// lagHistogram buckets the streams' lags (cumulative counts, as Prometheus wants them).
func lagHistogram(lags []uint64) (count uint64, sum float64, buckets map[float64]uint64) {
	buckets = make(map[float64]uint64, len(lagUpperBounds))
	for _, ub := range lagUpperBounds {
		buckets[ub] = 0
	}
	for _, l := range lags {
		count++
		sum += float64(l)
		for _, ub := range lagUpperBounds {
			if float64(l) <= ub {
				buckets[ub]++
			}
		}
	}
	return count, sum, buckets
}
