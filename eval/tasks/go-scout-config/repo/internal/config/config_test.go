package config

import "testing"

func TestLoadDefaults(t *testing.T) {
	t.Setenv("SHORTENER_PORT", "")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != DefaultPort {
		t.Fatalf("Port = %d, want %d", c.Port, DefaultPort)
	}
}

func TestLoadBadPort(t *testing.T) {
	t.Setenv("SHORTENER_PORT", "http")
	if _, err := Load(); err == nil {
		t.Fatal("want an error for a bad port")
	}
}
