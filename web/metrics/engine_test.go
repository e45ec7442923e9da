package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"hearth/engine"
)

// TestEngineStats: the engine's snapshot becomes gauges, a counter and a lag histogram with
// cumulative buckets.
func TestEngineStats(t *testing.T) {
	m := New()
	m.Watch(func() engine.Stats {
		return engine.Stats{Seq: 42, WriterQueue: 3, WriterQueueCap: 512, Streams: 3, HubHead: 100, HubRing: 8192, StreamLags: []uint64{0, 5, 9000}, LSMBytes: 1, VlogBytes: 2}
	})
	want := `
# HELP hearth_hub_stream_lag_events How many published events each follower of the hub (each live stream, the notifier, the plugins) has not read yet.
# TYPE hearth_hub_stream_lag_events histogram
hearth_hub_stream_lag_events_bucket{le="0"} 1
hearth_hub_stream_lag_events_bucket{le="1"} 1
hearth_hub_stream_lag_events_bucket{le="4"} 1
hearth_hub_stream_lag_events_bucket{le="16"} 2
hearth_hub_stream_lag_events_bucket{le="64"} 2
hearth_hub_stream_lag_events_bucket{le="256"} 2
hearth_hub_stream_lag_events_bucket{le="1024"} 2
hearth_hub_stream_lag_events_bucket{le="4096"} 2
hearth_hub_stream_lag_events_bucket{le="8192"} 2
hearth_hub_stream_lag_events_bucket{le="+Inf"} 3
hearth_hub_stream_lag_events_sum 9005
hearth_hub_stream_lag_events_count 3
# HELP hearth_hub_stream_lag_max_events The largest lag of any follower of the hub.
# TYPE hearth_hub_stream_lag_max_events gauge
hearth_hub_stream_lag_max_events 9000
# HELP hearth_writer_queue_depth Changes waiting for the writer.
# TYPE hearth_writer_queue_depth gauge
hearth_writer_queue_depth 3
# HELP hearth_hub_published_total Events (logged and ephemeral) the hub has published since start: its ring position.
# TYPE hearth_hub_published_total counter
hearth_hub_published_total 100
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want),
		"hearth_hub_stream_lag_events", "hearth_hub_stream_lag_max_events", "hearth_writer_queue_depth", "hearth_hub_published_total"); err != nil {
		t.Fatal(err)
	}
}

// TestCommits: a committed batch feeds the histograms; a failed one only the error count.
func TestCommits(t *testing.T) {
	m := New()
	m.Committed(engine.Commit{Changes: 70, Events: 70, Sync: 4_000_000})
	m.Committed(engine.Commit{Changes: 3, Failed: true})
	if n := testutil.CollectAndCount(m.batchChanges); n != 1 {
		t.Fatalf("%d batch histograms", n)
	}
	if v := testutil.ToFloat64(m.commitErrors); v != 1 {
		t.Fatalf("commit errors = %v", v)
	}
}
