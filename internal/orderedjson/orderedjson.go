// Package orderedjson encodes JSON objects whose keys keep the order they
// were given in, for output people read and diff (the Caddy configuration
// of internal/proxy, report's spread tables). It imports nothing of ours,
// so any package may use it.
package orderedjson

import (
	"bytes"
	"encoding/json"
)

// Field is one key of an Object and its value (encoded by encoding/json).
type Field struct {
	Key   string
	Value any
}

// Object is a JSON object that encodes its fields in order. Keys are not
// checked for duplicates.
type Object []Field

// MarshalJSON encodes the fields in order as one JSON object.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
