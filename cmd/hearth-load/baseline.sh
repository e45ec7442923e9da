#!/usr/bin/env bash
# baseline.sh takes the numbers of docs/performance.md: it builds hearth and hearth-load, and
# for each measurement starts a fresh server on loopback, runs the load, and stops the server.
# Results go to $OUT (default ./perf-out): one JSON summary per run and a log of the commands.
# Before each run it waits (up to 10 minutes) for the 1-minute load average to drop below 0.5,
# and records the load it started at: numbers taken on a busy machine mean little.
#
#   bash cmd/hearth-load/baseline.sh            # everything, about 15 minutes on a quiet machine
#   bash cmd/hearth-load/baseline.sh std idle   # only some: idle std fanout max streams http1 browsers
#
# QUIET_TRIES (default 40) bounds the wait for a quiet machine, 15 s a try: 0 does not wait.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/perf-out}
WORK=$(mktemp -d)
ADDR=${ADDR:-127.0.0.1:18080}
METRICS=${METRICS:-127.0.0.1:19464}
URL=http://$ADDR
mkdir -p "$OUT"
CGO_ENABLED=0 go build -tags disable_grpc_modules -o "$WORK/hearth.linked" ./cmd/hearth # as README.md builds a server
# Measured as installed, from a copy: run from the file the linker has just written, the same
# code idled 4-10 MB higher in RSS (the page cache holds that file differently: more of it is
# mapped at each page fault).
cp "$WORK/hearth.linked" "$WORK/hearth"
go build -o "$WORK/hearth-load" ./cmd/hearth-load
PID=

log() { echo "$*" | tee -a "$OUT/commands.log"; }

quiet() {
	for _ in $(seq "${QUIET_TRIES:-40}"); do
		awk '{exit !($1 < 0.5)}' /proc/loadavg && break
		sleep 15
	done
	log "# load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# start DATA MEMORY [FLAGS...]: a server on $ADDR with metrics on $METRICS.
start() {
	local data=$1 mem=$2
	shift 2
	log "$WORK/hearth -data $data -addr $ADDR -base-url $URL -metrics-addr $METRICS -memory $mem -log-level warn $*"
	"$WORK/hearth" -data "$data" -addr $ADDR -base-url $URL -metrics-addr $METRICS -memory "$mem" -log-level warn "$@" >"$data.log" 2>&1 &
	PID=$!
	for _ in $(seq 50); do
		curl -sf "http://$METRICS/metrics" >/dev/null && return
		sleep 0.2
	done
	echo "the server did not start:" >&2
	cat "$data.log" >&2
	exit 1
}

stop() {
	[ -n "$PID" ] && kill "$PID" && wait "$PID" || true
	PID=
}
trap 'stop; rm -rf "$WORK"' EXIT

rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$PID/status"; }

# load NAME DATA ARGS...: one run of hearth-load, its summary in $OUT/NAME.json.
load() {
	local name=$1 data=$2
	shift 2
	log "$WORK/hearth-load -url $URL -data $data -base-url $URL -metrics-url http://$METRICS/metrics -pid $PID -quiet -json $*"
	"$WORK/hearth-load" -url $URL -data "$data" -base-url $URL -metrics-url "http://$METRICS/metrics" -pid "$PID" -quiet -json "$@" >"$OUT/$name.json" || true
}

idle() {
	for mem in small default; do
		quiet
		start "$WORK/idle-$mem" "$mem"
		sleep 10
		log "idle RSS, -memory $mem: $(rss)"
		stop
	done
}

std() {
	for mem in small default; do
		quiet
		start "$WORK/std-$mem" "$mem"
		load "std-$mem" "$WORK/std-$mem" -subscribers 1000 -channels 10 -rate 50 -duration 30s
		sleep 5
		log "RSS 5 s after the standard run, -memory $mem: $(rss)"
		stop
	done
}

http1() {
	quiet
	start "$WORK/std-http1" small
	load std-http1 "$WORK/std-http1" -subscribers 1000 -channels 10 -rate 50 -duration 30s -http1
	stop
}

fanout() {
	for rate in 100 200 400; do
		quiet
		start "$WORK/fanout-$rate" small
		load "fanout-$rate" "$WORK/fanout-$rate" -subscribers 1000 -channels 10 -rate $rate -duration 20s
		stop
	done
}

max() {
	quiet
	start "$WORK/max" small
	load max-unpaced "$WORK/max" -subscribers 10 -senders 1500 -rate 0 -duration 20s
	stop
	for rate in 2000 3000 4000; do
		quiet
		start "$WORK/max-$rate" small
		load "max-$rate" "$WORK/max-$rate" -subscribers 10 -rate $rate -duration 20s
		stop
	done
}

streams() {
	# Joined and opened in one go: the join burst's retained state counts too.
	quiet
	start "$WORK/streams" small
	load streams-5000-fresh "$WORK/streams" -subscribers 5000 -duration 0 -settle 10s
	stop
	# The members joined before a restart: only the streams count.
	quiet
	start "$WORK/streams" small
	log "idle RSS with 5000 members, before any stream: $(sleep 10; rss)"
	load streams-5000 "$WORK/streams" -subscribers 5000 -duration 0 -settle 10s
	stop
}

# browsers: what a browser reaches, over TLS (a self-signed certificate): Subscribe over
# HTTP/2, Subscribe over HTTP/1.1 (one connection per stream, as behind a proxy) and GET /events
# (WebSocket), in turns on one data directory per load whose members joined in a first run
# (so memory per stream is the streams' alone), a fresh server per run. ROUNDS (default 2),
# LOADS (default "std fast").
browsers() {
	local url=$URL
	URL=https://$ADDR
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
		-addext subjectAltName=IP:127.0.0.1 -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
	# Voice off: its UDP port is fixed, and may be taken on a shared machine.
	local tls=(-tls-cert "$WORK/cert.pem" -tls-key "$WORK/key.pem" -voice-port 0)
	local std=(-subscribers 1000 -channels 10 -rate 50 -duration 20s)
	local fast=(-subscribers 100 -channels 10 -rate 1000 -duration 20s)
	for load in ${LOADS:-std fast}; do
		local data=$WORK/browsers-$load args
		if [ $load = std ]; then args=("${std[@]}"); else args=("${fast[@]}"); fi
		start "$data" small "${tls[@]}"
		load "browsers-$load-join" "$data" "${args[@]:0:2}" -duration 0 -ca-cert "$WORK/cert.pem"
		stop
		for round in $(seq "${ROUNDS:-2}"); do
			for mode in h2 http1 ws; do
				local flags=()
				[ $mode = http1 ] && flags=(-http1)
				[ $mode = ws ] && flags=(-ws)
				quiet
				start "$data" small "${tls[@]}"
				load "browsers-$load-$mode-$round" "$data" "${args[@]}" "${flags[@]}" -ca-cert "$WORK/cert.pem"
				stop
			done
		done
	done
	URL=$url
}

for what in "${@:-idle std http1 fanout max streams}"; do
	for w in $what; do
		"$w"
	done
done
log "# done"
