//go:build !race

package engine

// raceDetector tells a test that the race detector runs (race_test.go).
const raceDetector = false
