package extract

import (
	"reflect"
	"testing"
)

// TestLimitsWithDefaults: every field of Limits that is zero or negative
// takes its default, and every set field is kept, so a new limit cannot
// be left out of withDefaults unnoticed.
func TestLimitsWithDefaults(t *testing.T) {
	def := DefaultLimits()
	for _, tc := range []struct {
		name string
		v    int64
		want func(field int) int64
	}{
		{"zero", 0, func(i int) int64 { return reflect.ValueOf(def).Field(i).Int() }},
		{"negative", -1, func(i int) int64 { return reflect.ValueOf(def).Field(i).Int() }},
		{"set", 7, func(int) int64 { return 7 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lim Limits
			in := reflect.ValueOf(&lim).Elem()
			for i := range in.NumField() {
				in.Field(i).SetInt(tc.v)
			}
			got := reflect.ValueOf(lim.withDefaults())
			for i := range got.NumField() {
				if g, w := got.Field(i).Int(), tc.want(i); g != w {
					t.Errorf("%s %d: got %d, want %d", in.Type().Field(i).Name, tc.v, g, w)
				}
			}
		})
	}
}
