package orderedjson

import (
	"encoding/json"
	"testing"
)

func TestMarshal(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   any
		want string
	}{
		{"empty", Object{}, `{}`},
		{"nil", Object(nil), `{}`},
		{"order kept", Object{{"b", 1}, {"a", 2}}, `{"b":1,"a":2}`},
		{"nested", Object{{"x", Object{{"z", true}, {"y", nil}}}, {"l", []any{Object{{"k", "v"}}}}}, `{"x":{"z":true,"y":null},"l":[{"k":"v"}]}`},
		{"keys escaped", Object{{`a"b`, "<&>"}}, `{"a\"b":"\u003c\u0026\u003e"}`},
		{"inside a map", map[string]Object{"m": {{"2", 2}, {"1", 1}}}, `{"m":{"2":2,"1":1}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestMarshalError(t *testing.T) {
	if _, err := json.Marshal(Object{{"f", func() {}}}); err == nil {
		t.Error("a value encoding/json cannot encode: no error")
	}
}
