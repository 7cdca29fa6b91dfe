package kube

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// readPodSpec fills p from the workload's pod spec and its chosen
// container: what the kubelet would run, and what it would not (named in
// p.Unsupported).
func readPodSpec(p *Pod, w workload, opts Options) error {
	spec := &w.spec
	i, err := chooseContainer(spec.Containers, opts.Container, w.base)
	if err != nil {
		return err
	}
	c := &spec.Containers[i]
	path := fmt.Sprintf("%s.containers[%d]", w.base, i)
	p.Container, p.Image, p.Command, p.Args = c.Name, c.Image, c.Command, c.Args
	if c.Image == "" {
		return fmt.Errorf("%s.image: empty", path)
	}
	p.GracePeriod = DefaultGracePeriod
	if g := spec.TerminationGracePeriodSeconds; g != nil {
		if *g < 0 {
			return fmt.Errorf("%s.terminationGracePeriodSeconds: %d is negative", w.base, *g)
		}
		p.GracePeriod = time.Duration(*g) * time.Second
	}
	for _, cp := range c.Ports {
		p.Ports = append(p.Ports, Port{Name: cp.Name, Port: int(cp.ContainerPort)})
	}
	if err := readEnv(p, c, path, opts.Env); err != nil {
		return err
	}
	if err := readLifecycle(p, c, path); err != nil {
		return err
	}
	if err := readReadiness(p, c, path); err != nil {
		return err
	}
	noteUnsupported(p, spec, i, w.base, path)
	return nil
}

// chooseContainer is the index of the container named name, or of the
// only one.
func chooseContainer(cs []corev1.Container, name, base string) (int, error) {
	var names []string
	for i, c := range cs {
		if c.Name == name {
			return i, nil
		}
		names = append(names, c.Name)
	}
	switch {
	case len(cs) == 0:
		return 0, fmt.Errorf("%s.containers: none", base)
	case name != "":
		return 0, fmt.Errorf("--container %q: no such container in %s.containers (%s)", name, base, strings.Join(names, ", "))
	case len(cs) > 1:
		return 0, fmt.Errorf("%s.containers holds %d containers (%s): choose one with --container", base, len(cs), strings.Join(names, ", "))
	}
	return 0, nil
}

// readEnv takes the literal env entries; one taken from elsewhere
// (valueFrom) needs a value from the user, or it is refused.
func readEnv(p *Pod, c *corev1.Container, path string, given map[string]string) error {
	for j, e := range c.Env {
		if e.ValueFrom == nil {
			p.Env = append(p.Env, EnvVar{e.Name, e.Value})
			continue
		}
		v, ok := given[e.Name]
		if !ok {
			return &ValueFromError{Field: fmt.Sprintf("%s.env[%d]", path, j), Name: e.Name}
		}
		p.Env = append(p.Env, EnvVar{e.Name, v})
	}
	for j := range c.EnvFrom {
		p.Unsupported = append(p.Unsupported, fmt.Sprintf("%s.envFrom[%d]: not read (a ConfigMap or Secret); give what the app needs with --env NAME=VALUE", path, j))
	}
	return nil
}

// ValueFromError refuses an env entry that takes its value from
// elsewhere (valueFrom: a Secret, a ConfigMap, a field) when the user
// gave it none (Options.Env, check --manifest's --env NAME=VALUE).
type ValueFromError struct {
	// Field is the entry's path ("spec.template.spec.containers[0].env[1]")
	// and Name its variable.
	Field, Name string
}

// Error names the entry and the flag that gives its value.
func (e *ValueFromError) Error() string {
	return fmt.Sprintf("%s (%s) takes its value from valueFrom (a Secret, ConfigMap or field), which shutdownlab cannot read: give one with --env %s=VALUE",
		e.Field, e.Name, e.Name)
}

// readLifecycle takes the pre-stop hook and the stop signal.
func readLifecycle(p *Pod, c *corev1.Container, path string) error {
	l := c.Lifecycle
	if l == nil {
		return nil
	}
	if l.StopSignal != nil {
		p.StopSignal = string(*l.StopSignal)
	}
	if l.PostStart != nil {
		p.Unsupported = append(p.Unsupported, path+".lifecycle.postStart: not run")
	}
	h := l.PreStop
	if h == nil {
		return nil
	}
	hp := path + ".lifecycle.preStop"
	switch {
	case h.Exec != nil:
		if len(h.Exec.Command) == 0 {
			return fmt.Errorf("%s.exec.command: empty", hp)
		}
		p.PreStop = &Hook{Kind: HookExec, Command: h.Exec.Command}
	case h.HTTPGet != nil:
		port, err := resolvePort(h.HTTPGet.Port, p.Ports, hp+".httpGet.port")
		if err != nil {
			return err
		}
		p.PreStop = &Hook{Kind: HookHTTPGet, Path: orSlash(h.HTTPGet.Path), Port: port, Scheme: string(h.HTTPGet.Scheme)}
		if s := h.HTTPGet.Scheme; s != "" && s != corev1.URISchemeHTTP {
			return fmt.Errorf("%s.httpGet.scheme: %q; only HTTP is emulated", hp, s)
		}
	case h.Sleep != nil:
		if h.Sleep.Seconds < 0 {
			return fmt.Errorf("%s.sleep.seconds: %d is negative", hp, h.Sleep.Seconds)
		}
		p.PreStop = &Hook{Kind: HookSleep, Sleep: time.Duration(h.Sleep.Seconds) * time.Second}
	default:
		p.Unsupported = append(p.Unsupported, hp+": a handler other than exec, httpGet or sleep (tcpSocket) is not run")
	}
	return nil
}

// readReadiness takes an httpGet readiness probe, with Kubernetes'
// defaults for what it leaves out; other probe kinds are named.
func readReadiness(p *Pod, c *corev1.Container, path string) error {
	for _, pr := range []struct {
		name  string
		probe *corev1.Probe
	}{{"livenessProbe", c.LivenessProbe}, {"startupProbe", c.StartupProbe}} {
		if pr.probe != nil {
			p.Unsupported = append(p.Unsupported, path+"."+pr.name+": not run (only the readiness probe gates traffic)")
		}
	}
	r := c.ReadinessProbe
	if r == nil {
		return nil
	}
	rp := path + ".readinessProbe"
	if r.HTTPGet == nil {
		p.Unsupported = append(p.Unsupported, rp+": only httpGet is emulated; a new pod counts as ready once it started, as with no probe")
		return nil
	}
	port, err := resolvePort(r.HTTPGet.Port, p.Ports, rp+".httpGet.port")
	if err != nil {
		return err
	}
	pb := &Probe{Path: orSlash(r.HTTPGet.Path), Port: port, InitialDelay: secs(r.InitialDelaySeconds, 0),
		Period: secs(r.PeriodSeconds, DefaultProbePeriod), Timeout: secs(r.TimeoutSeconds, DefaultProbeTimeout),
		FailureThreshold: orInt(r.FailureThreshold, DefaultFailureThreshold), SuccessThreshold: orInt(r.SuccessThreshold, DefaultSuccessThreshold)}
	if pb.Period <= 0 || pb.Timeout <= 0 || pb.InitialDelay < 0 {
		return fmt.Errorf("%s: periodSeconds %d, timeoutSeconds %d, initialDelaySeconds %d: out of range", rp, r.PeriodSeconds, r.TimeoutSeconds, r.InitialDelaySeconds)
	}
	p.Readiness = pb
	return nil
}

// resolvePort is a probe's or hook's port: a number, or the name of a
// declared container port.
func resolvePort(v intstr.IntOrString, ports []Port, field string) (int, error) {
	if v.Type == intstr.Int {
		if v.IntVal < 1 || v.IntVal > 65535 {
			return 0, fmt.Errorf("%s: %d is not a port", field, v.IntVal)
		}
		return int(v.IntVal), nil
	}
	for _, p := range ports {
		if p.Name == v.StrVal {
			return p.Port, nil
		}
	}
	return 0, fmt.Errorf("%s: %q names no declared container port", field, v.StrVal)
}

// noteUnsupported names what of the pod spec the emulation does not run.
func noteUnsupported(p *Pod, spec *corev1.PodSpec, chosen int, base, path string) {
	for i, c := range spec.Containers {
		if i != chosen {
			p.Unsupported = append(p.Unsupported, fmt.Sprintf("%s.containers[%d] (%s): not run; only --container %s is", base, i, c.Name, p.Container))
		}
	}
	for i, c := range spec.InitContainers {
		what := "init container: not run (the app may need what it prepares)"
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			what = "sidecar: not run"
		}
		p.Unsupported = append(p.Unsupported, fmt.Sprintf("%s.initContainers[%d] (%s): %s", base, i, c.Name, what))
	}
	for i, v := range spec.Volumes {
		p.Unsupported = append(p.Unsupported, fmt.Sprintf("%s.volumes[%d] (%s): not mounted", base, i, v.Name))
	}
	c := &spec.Containers[chosen]
	if len(c.Resources.Limits) > 0 || len(c.Resources.Requests) > 0 {
		p.Unsupported = append(p.Unsupported, path+".resources: not applied (a CPU limit can slow a drain)")
	}
}

func orSlash(s string) string {
	if s == "" {
		return "/"
	}
	return s
}

func secs(v int32, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return time.Duration(v) * time.Second
}

func orInt(v int32, def int) int {
	if v == 0 {
		return def
	}
	return int(v)
}
