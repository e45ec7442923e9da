//go:build race

package engine

// raceDetector tells a test that the race detector runs, which makes heavy work many times
// slower and the heap a different shape.
const raceDetector = true
