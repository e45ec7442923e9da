package h2c

import "time"

// SetHeaderTableSize sets the SETTINGS_HEADER_TABLE_SIZE servers started after it advertise,
// and returns a function that puts the default back.
func SetHeaderTableSize(v uint32) (restore func()) {
	old := headerTableSize.Swap(v)
	return func() { headerTableSize.Store(old) }
}

// SetWriteStall sets how long a write may block on the connections made after it, and returns
// a function that puts the default back.
func SetWriteStall(d time.Duration) (restore func()) {
	old := writeStall.Swap(int64(d))
	return func() { writeStall.Store(old) }
}
