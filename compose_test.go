package main

import (
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/calgraph/calgraph/internal/config"
)

// composeFile is what docker-compose.yml may hold: read strictly, a key
// outside it (a typo, or one of Compose's this test does not know yet) fails
// the test.
type composeFile struct {
	Services map[string]struct {
		Image       string
		Command     []string
		User        string
		WorkingDir  string `yaml:"working_dir"`
		Ports       []string
		Restart     string
		DependsOn   map[string]struct{ Condition string } `yaml:"depends_on"`
		Environment map[string]string
		Healthcheck *struct {
			Test        []string
			Interval    string
			Timeout     string
			Retries     int
			StartPeriod string `yaml:"start_period"`
		}
		Volumes []string
	}
	Volumes map[string]any
}

// TestDockerCompose checks docker-compose.yml as far as it can be without a
// Docker engine: calgraph starts only once DynamoDB Local answers (a
// healthcheck that allows the 20-30 s it takes on a busy machine, and more),
// is restarted if it gives up, waits long enough for the table, reaches
// DynamoDB Local by its service name, and sets only settings calgraph has.
func TestDockerCompose(t *testing.T) {
	b, err := os.ReadFile("docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f composeFile
	if err := yaml.UnmarshalWithOptions(b, &f, yaml.Strict()); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	ddb, app := f.Services["dynamodb"], f.Services["calgraph"]
	if ddb.Image == "" || app.Image == "" {
		t.Fatalf("want services dynamodb and calgraph, got %v", f.Services)
	}
	duration := func(what, v string) time.Duration {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
		return d
	}
	if hc := ddb.Healthcheck; hc == nil || len(hc.Test) < 2 || !strings.HasPrefix(hc.Test[0], "CMD") {
		t.Errorf("dynamodb has no healthcheck command: %+v", hc)
	} else if wait := duration("start_period", hc.StartPeriod) + time.Duration(hc.Retries)*duration("interval", hc.Interval); wait < 2*time.Minute {
		t.Errorf("dynamodb's healthcheck gives up after %v, want at least 2m: it took 21-28 s to start on a busy machine", wait)
	}
	if c := app.DependsOn["dynamodb"].Condition; c != "service_healthy" {
		t.Errorf("calgraph depends on dynamodb with condition %q, want service_healthy", c)
	}
	if !slices.Contains([]string{"on-failure", "unless-stopped", "always"}, app.Restart) {
		t.Errorf("calgraph's restart policy is %q, want it restarted when it gives up", app.Restart)
	}
	if app.Healthcheck == nil || !strings.Contains(strings.Join(app.Healthcheck.Test, " "), "/readyz") {
		t.Errorf("calgraph's healthcheck does not ask /readyz: %+v", app.Healthcheck)
	}
	if wait := duration("CALGRAPH_STORE_WAIT", app.Environment["CALGRAPH_STORE_WAIT"]); wait < 2*time.Minute {
		t.Errorf("CALGRAPH_STORE_WAIT is %v, want at least 2m", wait)
	}
	known := map[string]bool{}
	for _, s := range config.Settings() {
		known[s.Env] = true
	}
	for k := range app.Environment {
		if strings.HasPrefix(k, "CALGRAPH_") && !known[k] {
			t.Errorf("calgraph's environment sets %s, which is no setting", k)
		}
	}
	if u, err := url.Parse(app.Environment["AWS_ENDPOINT_URL_DYNAMODB"]); err != nil || u.Hostname() != "dynamodb" {
		t.Errorf("AWS_ENDPOINT_URL_DYNAMODB is %q, want the dynamodb service", app.Environment["AWS_ENDPOINT_URL_DYNAMODB"])
	}
	for _, svc := range f.Services {
		for _, v := range svc.Volumes {
			if name, _, _ := strings.Cut(v, ":"); !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "/") {
				if _, ok := f.Volumes[name]; !ok {
					t.Errorf("volume %s is used but not declared", name)
				}
			}
		}
	}
}
