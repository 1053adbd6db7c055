package calendar

import "testing"

func TestLoadLocationRemembers(t *testing.T) {
	a, err := LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadLocation("Europe/Paris")
	if err != nil || a != b {
		t.Fatalf("second load: %p, %v; want the first location %p", b, err, a)
	}
	if a.String() != "Europe/Paris" {
		t.Fatalf("loaded %s", a)
	}
	for range 2 { // a failure is not remembered as a success
		if _, err := LoadLocation("Mars/Olympus_Mons"); err == nil {
			t.Fatal("unknown zone loaded")
		}
	}
}
