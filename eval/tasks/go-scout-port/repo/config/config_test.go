package config

import "testing"

func TestOverride(t *testing.T) {
	c := Default()
	c.Port = 18080
	if c.Port == DefaultPort {
		t.Fatal("the override did not change the port")
	}
}
