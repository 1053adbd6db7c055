package ical

// WindowsZones exposes the CLDR table to the tests.
func WindowsZones() map[string]string { return windowsZones }
