package telemetry

import "github.com/prometheus/client_golang/prometheus"

// CounterFuncByLabel registers a counter with one label, whose values are
// read from values at each scrape (label value to count). The label's values
// must come from a fixed set (reasons, not user input).
func (m *Metrics) CounterFuncByLabel(name, help, label string, values func() map[string]float64) {
	m.reg.MustRegister(&labelledCounter{desc: prometheus.NewDesc(name, help, []string{label}, nil), values: values})
	m.named(name)
}

type labelledCounter struct {
	desc   *prometheus.Desc
	values func() map[string]float64
}

func (c *labelledCounter) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *labelledCounter) Collect(ch chan<- prometheus.Metric) {
	for v, n := range c.values() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, n, v)
	}
}
