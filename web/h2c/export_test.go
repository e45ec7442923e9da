package h2c

// SetHeaderTableSize sets the SETTINGS_HEADER_TABLE_SIZE servers started after it advertise,
// and returns a function that puts the default back.
func SetHeaderTableSize(v uint32) (restore func()) {
	old := headerTableSize.Swap(v)
	return func() { headerTableSize.Store(old) }
}
