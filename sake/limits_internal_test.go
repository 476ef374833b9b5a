package sake

import (
	"reflect"
	"testing"
)

// WithLimits carries every field of Limits: one added to the struct and
// not to WithLimits fails here.
func TestWithLimitsCarriesEveryField(t *testing.T) {
	var l Limits
	v := reflect.ValueOf(&l).Elem()
	for i := range v.NumField() {
		v.Field(i).SetInt(int64(i + 1))
	}
	var o options
	WithLimits(l)(&o)
	if o.limits != l {
		t.Errorf("WithLimits(%+v) kept %+v", l, o.limits)
	}
}
