// Package config loads the server configuration from the environment.
package config

import (
	"fmt"
	"os"
	"strconv"
)

// DefaultPort is used when SHORTENER_PORT is not set.
const DefaultPort = 7311

// Config is the server configuration.
type Config struct {
	Host        string
	Port        int
	SecretsPath string
}

// Load reads SHORTENER_HOST, SHORTENER_PORT and SHORTENER_SECRETS.
func Load() (Config, error) {
	c := Config{
		Host:        os.Getenv("SHORTENER_HOST"),
		Port:        DefaultPort,
		SecretsPath: "secrets.json",
	}
	if v := os.Getenv("SHORTENER_PORT"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p <= 0 || p > 65535 {
			return c, fmt.Errorf("SHORTENER_PORT=%q: not a port", v)
		}
		c.Port = p
	}
	if v := os.Getenv("SHORTENER_SECRETS"); v != "" {
		c.SecretsPath = v
	}
	return c, nil
}

// Addr is the listen address.
func (c Config) Addr() string { return fmt.Sprintf("%s:%d", c.Host, c.Port) }
