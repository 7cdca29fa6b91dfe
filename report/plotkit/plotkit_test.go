package plotkit

import (
	"slices"
	"testing"
)

func TestNiceTicks(t *testing.T) {
	var labels []string
	for _, tk := range (NiceTicks{}).Ticks(0, 6.2) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := []string{"0", "1", "2", "3", "4", "5", "6"}; !slices.Equal(labels, want) {
		t.Errorf("labels = %v, want %v", labels, want)
	}
}
