package kube

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// MaxManifestBytes bounds a manifest file: far above any workload's, far
// below what could exhaust memory in the decoder. MaxManifestSize says it
// in words.
const (
	MaxManifestBytes = 4 << 20
	MaxManifestSize  = "4 MiB"
)

// Options choose what Read takes from a manifest.
type Options struct {
	// Workload picks one workload by name ("web") or kind and name
	// ("Deployment/web") when the file holds several; "" takes the only
	// one.
	Workload string
	// Container picks one container by name; "" takes the only one.
	Container string
	// Env are values the user gives (check --manifest's --env
	// NAME=VALUE) for entries the manifest takes from elsewhere
	// (valueFrom): an entry without one here is refused, naming the field
	// (ValueFromError).
	Env map[string]string
}

// workload is one Deployment, StatefulSet or Pod of a manifest.
type workload struct {
	kind, name string
	doc        int // 1-based document index
	// base is the field path of its pod spec ("spec.template.spec").
	base string
	spec corev1.PodSpec
	// fill sets the replica count and strategy on p.
	fill func(p *Pod) error
	// template, replicas, strategy and minReady are the workload as a
	// Deployment would run it (Template).
	template corev1.PodTemplateSpec
	replicas int32
	strategy appsv1.DeploymentStrategy
	minReady int32
}

// Read reads the workload of file's manifest data (YAML, several
// documents allowed) into the Pod the emulation runs. Errors name the
// file, the document, the field and the value.
func Read(file string, data []byte, opts Options) (Pod, error) {
	if len(data) > MaxManifestBytes {
		return Pod{}, fmt.Errorf("%s: %d bytes, more than the %s a manifest may have", file, len(data), MaxManifestSize)
	}
	ws, others, err := workloads(file, data)
	if err != nil {
		return Pod{}, err
	}
	w, err := pick(file, ws, opts.Workload)
	if err != nil {
		return Pod{}, err
	}
	p := Pod{File: file, Kind: w.kind, Name: w.name}
	for _, o := range others {
		p.Unsupported = append(p.Unsupported, o+": not a workload; not emulated")
	}
	if err := w.fill(&p); err != nil {
		return Pod{}, fmt.Errorf("%s: %s %s: %w", file, w.kind, w.name, err)
	}
	if err := readPodSpec(&p, w, opts); err != nil {
		return Pod{}, fmt.Errorf("%s: %s %s: %w", file, w.kind, w.name, err)
	}
	return p, nil
}

// workloads decodes every document of data, strictly (an unknown field
// is an error, so a typo does not pass as a default), and returns the
// workloads and the other objects ("Service web").
func workloads(file string, data []byte) (ws []workload, others []string, err error) {
	rd := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for doc := 1; ; doc++ {
		b, rerr := rd.Read()
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, nil, fmt.Errorf("%s: document %d: %w", file, doc, rerr)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(b, &tm); err != nil {
			return nil, nil, fmt.Errorf("%s: document %d: %w", file, doc, err)
		}
		w, ok, err := decode(tm, b, doc)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: document %d (%s): %w", file, doc, tm.Kind, err)
		}
		if ok {
			ws = append(ws, w)
		} else if tm.Kind != "" {
			others = append(others, fmt.Sprintf("document %d (%s)", doc, tm.Kind))
		}
	}
	if len(ws) == 0 {
		return nil, nil, fmt.Errorf("%s: no Deployment, StatefulSet or Pod in it", file)
	}
	return ws, others, nil
}

// decode decodes one document of a workload kind; ok is false for any
// other kind.
func decode(tm metav1.TypeMeta, b []byte, doc int) (w workload, ok bool, err error) {
	switch tm.Kind {
	case "Deployment":
		var d appsv1.Deployment
		if err := yaml.UnmarshalStrict(b, &d); err != nil {
			return w, false, err
		}
		return workload{kind: tm.Kind, name: d.Name, doc: doc, base: "spec.template.spec", spec: d.Spec.Template.Spec,
			fill:     func(p *Pod) error { return deploymentStrategy(p, &d) },
			template: d.Spec.Template, replicas: int32(replicas(d.Spec.Replicas)), strategy: d.Spec.Strategy, minReady: d.Spec.MinReadySeconds}, true, nil
	case "StatefulSet":
		var s appsv1.StatefulSet
		if err := yaml.UnmarshalStrict(b, &s); err != nil {
			return w, false, err
		}
		return workload{kind: tm.Kind, name: s.Name, doc: doc, base: "spec.template.spec", spec: s.Spec.Template.Spec,
			fill:     func(p *Pod) error { return statefulSetStrategy(p, &s) },
			template: s.Spec.Template, replicas: int32(replicas(s.Spec.Replicas)), minReady: s.Spec.MinReadySeconds}, true, nil
	case "Pod":
		var pod corev1.Pod
		if err := yaml.UnmarshalStrict(b, &pod); err != nil {
			return w, false, err
		}
		return workload{kind: tm.Kind, name: pod.Name, doc: doc, base: "spec", spec: pod.Spec,
			fill:     func(p *Pod) error { p.Replicas = 1; return nil },
			template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: pod.Labels, Annotations: pod.Annotations}, Spec: pod.Spec},
			replicas: 1}, true, nil
	}
	return w, false, nil
}

// pick returns the workload named by sel ("web" or "Deployment/web"), or
// the only one.
func pick(file string, ws []workload, sel string) (workload, error) {
	var names []string
	for _, w := range ws {
		names = append(names, w.kind+"/"+w.name)
	}
	if sel == "" {
		if len(ws) == 1 {
			return ws[0], nil
		}
		return workload{}, fmt.Errorf("%s holds %d workloads (%s): choose one with --workload", file, len(ws), strings.Join(names, ", "))
	}
	var found []workload
	for _, w := range ws {
		if w.name == sel || w.kind+"/"+w.name == sel {
			found = append(found, w)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return workload{}, fmt.Errorf("%s: --workload %q: no such workload (it holds %s)", file, sel, strings.Join(names, ", "))
	}
	return workload{}, fmt.Errorf("%s: --workload %q names %d workloads: give the kind too (%s)", file, sel, len(found), strings.Join(names, ", "))
}
