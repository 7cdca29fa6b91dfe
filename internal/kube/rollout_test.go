package kube

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestResolveFenceposts pins the Deployment controller's arithmetic
// (pkg/controller/deployment/util.ResolveFenceposts).
func TestResolveFenceposts(t *testing.T) {
	pct := func(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
	n := func(i int) *intstr.IntOrString { v := intstr.FromInt32(int32(i)); return &v }
	tests := []struct {
		rule                   string
		surge, unavailable     *intstr.IntOrString
		replicas               int
		wantSurge, wantUnavail int
		wantErr                bool
	}{
		{"defaults 25%/25% of 4: 1 and 1", nil, nil, 4, 1, 1, false},
		{"a surge percentage rounds up: 25% of 3 is 1", nil, pct("0%"), 3, 1, 0, false},
		{"an unavailable percentage rounds down: 25% of 3 is 0", pct("0%"), nil, 3, 0, 1, false},
		{"both zero: maxUnavailable becomes 1", n(0), n(0), 3, 0, 1, false},
		{"counts are taken as they are", n(2), n(1), 3, 2, 1, false},
		{"defaults on one replica: surge 1, unavailable 0", nil, nil, 1, 1, 0, false},
		{"100% surge of 3", pct("100%"), n(0), 3, 3, 0, false},
		{"a malformed percentage is an error", pct("abc"), nil, 3, 0, 0, true},
		{"a negative count is an error", n(-1), nil, 3, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			s, u, err := ResolveFenceposts(tt.surge, tt.unavailable, tt.replicas)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if err == nil && (s != tt.wantSurge || u != tt.wantUnavail) {
				t.Errorf("surge %d unavailable %d, want %d %d", s, u, tt.wantSurge, tt.wantUnavail)
			}
		})
	}
}
