package resources

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestParseStatus(t *testing.T) {
	tests := []struct {
		file    string
		want    Status
		wantErr string
	}{
		{file: "status-cp.txt", want: Status{Name: "cp", PPID: 23518, RSSBytes: 2160 * 1024, Threads: 1}},
		{file: "status-node.txt", want: Status{Name: "node", PPID: 24235, RSSBytes: 40356 * 1024, Threads: 7}},
		{file: "status-zombie.txt", want: Status{Name: "cp", PPID: 23518, Threads: 1}},
		{file: "status-kthread.txt", want: Status{Name: "kworker/R-rcu_gp", PPID: 2, Threads: 1}},
		{file: "status-badunit.txt", wantErr: `VmRSS "12 MB": want a number of kB`},
		{file: "status-badppid.txt", wantErr: `PPid "x"`},
		{file: "status-noppid.txt", wantErr: "no PPid or Threads line"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := ParseStatus(f)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseStatus = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestParseStatPPID(t *testing.T) {
	tests := []struct {
		stat    string
		want    int
		wantErr string
	}{
		{stat: "23238 (cat) R 23234 23234 31621 0 -1 4194304", want: 23234},
		{stat: "7 (a (b) c) S 1 7 7 0", want: 1},
		{stat: "9 (x) Z 0", want: 0},
		{stat: "9 x R 1", wantErr: "no ')'"},
		{stat: "9 (x) R", wantErr: "no ppid field"},
		{stat: "9 (x) R p", wantErr: `ppid "p"`},
	}
	for _, tt := range tests {
		got, err := ParseStatPPID([]byte(tt.stat))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: error %v, want one containing %q", tt.stat, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: = %d, %v; want %d", tt.stat, got, err, tt.want)
		}
	}
}

func TestDescendants(t *testing.T) {
	// 1 ─ 10 ─ 20 ─ 30
	//   │    └ 21
	//   └ 11
	// 40 (unrelated) ─ 41
	ppid := map[int]int{1: 0, 10: 1, 11: 1, 20: 10, 21: 10, 30: 20, 40: 0, 41: 40}
	tests := []struct {
		roots []int
		want  []int
	}{
		{[]int{10}, []int{10, 20, 21, 30}},
		{[]int{20, 10}, []int{20, 10, 30, 21}},
		{[]int{1}, []int{1, 10, 11, 20, 21, 30}},
		{[]int{41}, []int{41}},
		{[]int{99}, nil},
		{[]int{99, 40}, []int{40, 41}},
	}
	for _, tt := range tests {
		if got := Descendants(tt.roots, ppid); !slices.Equal(got, tt.want) {
			t.Errorf("Descendants(%v) = %v, want %v", tt.roots, got, tt.want)
		}
	}
}
