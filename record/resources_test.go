package record

import (
	"reflect"
	"testing"
)

func TestResourceTicks(t *testing.T) {
	s := func(ts int64, replica string, fds int, rss int64, threads int) ResourceSample {
		return ResourceSample{TimeNs: ts, Replica: replica, FDs: fds, RSSBytes: rss, Threads: threads}
	}
	tests := []struct {
		name    string
		samples []ResourceSample
		replica string
		want    []ResourceTick
	}{
		{"none", nil, "replica-0", nil},
		{"other replica only", []ResourceSample{s(1, "replica-1", 3, 10, 1)}, "replica-0", nil},
		{"one process per tick", []ResourceSample{s(1, "replica-0", 3, 10, 1), s(2, "replica-0", 5, 20, 2)}, "replica-0",
			[]ResourceTick{{TimeNs: 1, FDs: 3, RSSBytes: 10, Threads: 1, Processes: 1}, {TimeNs: 2, FDs: 5, RSSBytes: 20, Threads: 2, Processes: 1}}},
		{"a tree summed, other replicas skipped", []ResourceSample{s(1, "replica-0", 3, 10, 1), s(1, "replica-1", 100, 100, 100), s(1, "replica-0", 4, 5, 2)}, "replica-0",
			[]ResourceTick{{TimeNs: 1, FDs: 7, RSSBytes: 15, Threads: 3, Processes: 2}}},
		{"out of order ticks sorted", []ResourceSample{s(5, "replica-0", 1, 1, 1), s(2, "replica-0", 2, 2, 2)}, "replica-0",
			[]ResourceTick{{TimeNs: 2, FDs: 2, RSSBytes: 2, Threads: 2, Processes: 1}, {TimeNs: 5, FDs: 1, RSSBytes: 1, Threads: 1, Processes: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ResourceTicks(tt.samples, tt.replica); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ResourceTicks = %+v, want %+v", got, tt.want)
			}
		})
	}
}
