package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Summary is what a run measured; -json prints it as is.
type Summary struct {
	Run      string       `json:"run"`
	Config   configEcho   `json:"config"`
	Members  memberCounts `json:"members"`
	Setup    setupTimes   `json:"setup"`
	Streams  streamCounts `json:"streams"`
	Send     sendResult   `json:"send"`
	Delivery delivery     `json:"delivery"`
	// CPU is what the server and the tool used while sending and draining.
	CPU cpuUse `json:"cpu"`
	// Errors counts failed calls by phase (join, open, send, stream) and Connect code.
	Errors map[string]map[string]int64 `json:"errors"`
	// Server is sampled before joining, once the streams are open, and after the drain.
	Server struct {
		Start serverSample `json:"start"`
		Open  serverSample `json:"streams_open"`
		End   serverSample `json:"end"`
	} `json:"server"`
	// OK: nothing lost, duplicated, reordered or wrongly delivered, and no stream ended early.
	OK bool `json:"ok"`
}

type configEcho struct {
	URL         string  `json:"url"`
	Protocol    string  `json:"protocol"`
	HTTP        string  `json:"http"`
	Codec       string  `json:"codec"`
	Subscribers int     `json:"subscribers"`
	Senders     int     `json:"senders"`
	Channels    int     `json:"channels"`
	Rate        float64 `json:"rate"`
	SenderRate  float64 `json:"sender_rate"`
	Duration    float64 `json:"duration_s"`
	TextBytes   int     `json:"text_bytes"`
}

// cpuUse is CPU time over the send and drain phases. The server's is zero when the tool has
// neither -pid nor -metrics-url.
type cpuUse struct {
	Seconds       float64 `json:"seconds"`
	ServerSeconds float64 `json:"server_s"`
	ToolSeconds   float64 `json:"tool_s"`
	// ServerMicrosPerDelivery is the server's CPU over the deliveries counted in the run
	// (everything the server did meanwhile, sends included).
	ServerMicrosPerDelivery float64 `json:"server_us_per_delivery"`
}

type memberCounts struct {
	Total  int   `json:"total"`
	Joined int64 `json:"joined"`
	Reused int64 `json:"reused"`
	OptIn  bool  `json:"opt_in"`
}

type setupTimes struct {
	JoinSeconds float64 `json:"join_s"`
	OpenSeconds float64 `json:"open_s"`
}

type streamCounts struct {
	Opened     int64 `json:"opened"`
	Failed     int64 `json:"failed"`
	EndedEarly int64 `json:"ended_early"`
	Resyncs    int64 `json:"resyncs"`
}

type sendResult struct {
	Seconds      float64 `json:"seconds"`
	DrainSeconds float64 `json:"drain_s"`
	Sent         int64   `json:"sent"`
	Acked        int64   `json:"acked"`
	Failed       int64   `json:"failed"`
	// Skipped counts schedule slots given up by senders that fell more than a second behind.
	Skipped     int64   `json:"skipped"`
	SentPerSec  float64 `json:"sent_per_s"`
	AckedPerSec float64 `json:"acked_per_s"`
	PeakAcked   int64   `json:"peak_acked_per_s"`
	Latency     latency `json:"latency"`
}

type delivery struct {
	Count      int64   `json:"count"`
	PerSec     float64 `json:"per_s"`
	PeakPerSec int64   `json:"peak_per_s"`
	Latency    latency `json:"latency"`
	tally
}

func newSummary(r *run) *Summary {
	c := r.cfg
	s := &Summary{Run: r.id}
	s.Config = configEcho{
		URL: c.URL, Protocol: c.Protocol, HTTP: "h2c", Codec: "proto",
		Subscribers: c.Subscribers, Senders: c.Senders, Channels: c.Channels,
		Rate: c.Rate, SenderRate: c.SenderRate, Duration: c.Duration.Seconds(), TextBytes: c.TextBytes,
	}
	switch {
	case c.HTTP1:
		s.Config.HTTP = "http/1.1"
	case c.tls():
		s.Config.HTTP = "h2"
	}
	if c.tls() {
		s.Config.HTTP += " over tls"
	}
	if c.JSONCodec {
		s.Config.Codec = "json"
	}
	return s
}

func (s *Summary) fillMembers(r *run) {
	s.Members = memberCounts{Total: len(r.members), Joined: r.joined.Load(), Reused: r.reused.Load(), OptIn: r.optIn}
}

// finish fills in the counts; the stream readers must have stopped for the tally to be exact.
func (s *Summary) finish(r *run) *Summary {
	s.fillMembers(r)
	s.Streams = streamCounts{
		Opened: r.streams.opened.Load(), Failed: r.streams.failed.Load(),
		EndedEarly: r.streams.ended.Load(), Resyncs: r.streams.resyncs.Load(),
	}
	s.Send.Sent, s.Send.Acked, s.Send.Failed, s.Send.Skipped = r.sent.Load(), r.acked.Load(), r.failed.Load(), r.skipped.Load()
	if s.Send.Seconds > 0 {
		s.Send.SentPerSec = float64(s.Send.Sent) / s.Send.Seconds
		s.Send.AckedPerSec = float64(s.Send.Acked) / s.Send.Seconds
	}
	s.Send.PeakAcked = r.peakAcked.Load()
	s.Send.Latency = r.sendLat.summary()
	s.Delivery.Count = r.deliveries.Load()
	if t := s.Send.Seconds + s.Send.DrainSeconds; t > 0 {
		s.Delivery.PerSec = float64(s.Delivery.Count) / t
	}
	s.Delivery.PeakPerSec = r.peakDeliveries.Load()
	s.Delivery.Latency = r.deliveryLat.summary()
	if r.ledger != nil {
		s.Delivery.tally = r.ledger.tally()
	}
	s.Errors = r.errs.snapshot()
	s.OK = s.Delivery.ok() && s.Streams.EndedEarly == 0 && s.Streams.Failed == 0 && s.Streams.Resyncs == 0
	return s
}

func (s *Summary) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

func (s *Summary) writeText(w io.Writer) {
	c := s.Config
	fmt.Fprintf(w, "run %s against %s (%s over %s, %s)\n", s.Run, c.URL, c.Protocol, c.HTTP, c.Codec)
	fmt.Fprintf(w, "members      %d (%d joined, %d from an earlier run)%s; join %.1fs, open %d streams %.1fs\n",
		s.Members.Total, s.Members.Joined, s.Members.Reused, map[bool]string{true: ", opt-in mode"}[s.Members.OptIn],
		s.Setup.JoinSeconds, s.Streams.Opened, s.Setup.OpenSeconds)
	rate := "as fast as allowed"
	if c.Rate > 0 {
		rate = fmt.Sprintf("%g/s", c.Rate)
	}
	fmt.Fprintf(w, "load         %d senders at %s into %d channels for %gs, %d subscribers\n", c.Senders, rate, c.Channels, c.Duration, c.Subscribers)
	d := s.Send
	fmt.Fprintf(w, "sends        %d sent (%.1f/s), %d acknowledged (%.1f/s, peak %d/s), %d failed, %d skipped\n",
		d.Sent, d.SentPerSec, d.Acked, d.AckedPerSec, d.PeakAcked, d.Failed, d.Skipped)
	fmt.Fprintf(w, "send latency %s\n", s.Send.Latency)
	fmt.Fprintf(w, "deliveries   %d (%.0f/s, peak %d/s), drained in %.2fs\n", s.Delivery.Count, s.Delivery.PerSec, s.Delivery.PeakPerSec, d.DrainSeconds)
	fmt.Fprintf(w, "delivery lat %s\n", s.Delivery.Latency)
	t := s.Delivery.tally
	fmt.Fprintf(w, "checks       lost %d, duplicated %d, out of order %d, refused yet delivered %d, unanswered yet delivered %d; streams ended early %d, resyncs %d, failed to open %d\n",
		t.Lost, t.Duplicated, t.OutOfOrder, t.Refused, t.Unacked, s.Streams.EndedEarly, s.Streams.Resyncs, s.Streams.Failed)
	if s.CPU.Seconds > 0 {
		fmt.Fprintf(w, "cpu          server %.2fs (%.1f us per delivery), this tool %.2fs, over %.1fs of sending and draining\n",
			s.CPU.ServerSeconds, s.CPU.ServerMicrosPerDelivery, s.CPU.ToolSeconds, s.CPU.Seconds)
	}
	fmt.Fprintf(w, "errors       %s\n", errorText(s.Errors))
	fmt.Fprintf(w, "server       start %s | streams open %s | end %s\n", s.Server.Start, s.Server.Open, s.Server.End)
	verdict := "OK"
	if !s.OK {
		verdict = "FAILED: events were lost, duplicated or reordered, or streams failed"
	}
	fmt.Fprintln(w, verdict)
}

func (l latency) String() string {
	if l.Count == 0 {
		return "none"
	}
	return fmt.Sprintf("p50 %.1fms  p90 %.1fms  p99 %.1fms  max %.1fms  (%d samples)", l.P50, l.P90, l.P99, l.Max, l.Count)
}

func (s serverSample) String() string {
	if s.RSSBytes == 0 && s.Goroutines == 0 {
		if s.Err != "" {
			return "unknown (" + s.Err + ")"
		}
		return "-"
	}
	out := fmt.Sprintf("RSS %.1f MB", float64(s.RSSBytes)/(1<<20))
	if s.HeapBytes > 0 {
		out += fmt.Sprintf(" (Go heap %.1f MB)", float64(s.HeapBytes)/(1<<20))
	}
	if s.Goroutines > 0 {
		out += fmt.Sprintf(", %d goroutines", s.Goroutines)
	}
	return out
}

func errorText(errs map[string]map[string]int64) string {
	var parts []string
	for phase, codes := range errs {
		for code, n := range codes {
			parts = append(parts, fmt.Sprintf("%s %s %d", phase, code, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
