package main

import (
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want float64
	}{
		{"one", []float64{3}, 3},
		{"odd", []float64{5, 1, 3}, 3},
		{"even", []float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := median(tt.in); got != tt.want {
				t.Errorf("median(%v) = %v; want %v", tt.in, got, tt.want)
			}
		})
	}
	if got := median(nil); got == got {
		t.Errorf("median(nil) = %v; want NaN", got)
	}
}

func TestPercentile(t *testing.T) {
	sorted := make([]time.Duration, 100)
	for i := range sorted {
		sorted[i] = time.Duration(i + 1)
	}
	tests := []struct {
		p    float64
		want time.Duration
	}{{0.5, 50}, {0.99, 99}, {1, 100}, {0, 1}}
	for _, tt := range tests {
		if got := percentile(sorted, tt.p); got != tt.want {
			t.Errorf("percentile(1..100, %v) = %v; want %v", tt.p, got, tt.want)
		}
	}
}

func TestEventName(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`{"protocol":"magi-code.local-agent","version":1,"type":"event","instance_id":"x","seq":7,"event":"message.delta","data":{}}`, "message.delta"},
		{`{"protocol":"magi-code.local-agent","version":1,"type":"response","instance_id":"x","seq":1,"id":"r1","result":{}}`, ""},
		{`{"event":"unterminated`, ""},
	}
	for _, tt := range tests {
		if got := eventName([]byte(tt.in)); got != tt.want {
			t.Errorf("eventName(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{{3, "3"}, {0.25, "0.25"}, {123.456, "123.5"}, {1.23456, "1.235"}, {nanValue(), "NaN"}}
	for _, tt := range tests {
		if got := format(tt.in); got != tt.want {
			t.Errorf("format(%v) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
