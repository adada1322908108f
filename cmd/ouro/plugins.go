package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/mcpconf"
	"github.com/ouroagent/ouro/plugin"
	"github.com/ouroagent/ouro/plugin/market"
	"github.com/ouroagent/ouro/settings"
)

// cliPlugins are the plugins a session in cwd with these --plugin-dir folders loads:
// those, then the installed plugins enabledPlugins turns on.
func cliPlugins(dirs []string, cwd string, warn io.Writer) []plugin.Plugin {
	if _, home, ouroHome, err := mcpPlaces(); err == nil {
		installed, _ := harness.EnabledPlugins(cwd, home, ouroHome, warn)
		dirs = append(slices.Clip(dirs), installed...)
	}
	ps, warns := plugin.Load(dirs)
	for _, w := range warns {
		fmt.Fprintf(warn, "ouro: %s\n", w)
	}
	return ps
}

// pluginPlaces are the store, the marketplace policy of the settings and where
// `ouro plugin enable` writes.
func pluginPlaces() (market.Store, market.Settings, string, string, error) {
	cwd, home, ouroHome, err := mcpPlaces()
	if err != nil {
		return market.Store{}, market.Settings{}, "", "", err
	}
	set := market.Read(market.Files{UserHome: home, OuroHome: ouroHome, Project: cwd, Managed: settings.ManagedPaths()})
	return market.Store{Home: ouroHome}, set, market.UserSettings(ouroHome), cwd, nil
}

func newPluginCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "plugin",
		Short: "Install Claude Code plugins from marketplaces, enable and disable them",
		Long: `Plugins in Claude Code's layout come from marketplaces: a folder or a git repository
holding .claude-plugin/marketplace.json. ouro keeps the marketplaces it knows and the
plugins it installed under ouro's home (~/.ouro/plugins, OURO_HOME), each plugin copied
there pinned to the commit it was installed from; Claude Code's ~/.claude/plugins stays
Claude Code's. Settings: enabledPlugins {"NAME@MARKET": true|false} says which installed
plugins a session loads (as it loads --plugin-dir ones); extraKnownMarketplaces declares
marketplaces install may use; managed strictKnownMarketplaces allows only those listed.
Only git fetches anything (a github source is a clone of https://github.com/OWNER/REPO.git).`,
	}
	c.AddCommand(newMarketplaceCmd(), newPluginInstallCmd(), newPluginUninstallCmd(), newPluginListCmd(),
		newPluginEnableCmd(true), newPluginEnableCmd(false))
	return c
}

func newMarketplaceCmd() *cobra.Command {
	c := &cobra.Command{Use: "marketplace", Short: "Add, list and remove plugin marketplaces"}
	add := &cobra.Command{
		Use:   "add SOURCE",
		Short: "Add a marketplace: OWNER/REPO[#ref] (GitHub), a git URL[#ref] or a folder",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, set, _, cwd, err := pluginPlaces()
			if err != nil {
				return err
			}
			src, err := market.ParseSource(args[0], cwd)
			if err != nil {
				return err
			}
			name, err := st.AddMarket(src, set.Policy)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Added marketplace %s (%s)\n", name, src)
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the known marketplaces",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, set, _, _, err := pluginPlaces()
			if err != nil {
				return err
			}
			known, err := st.Markets()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(known) == 0 && len(set.Policy.Extra) == 0 {
				fmt.Fprintln(out, "No marketplaces. Add one with `ouro plugin marketplace add SOURCE`.")
				return nil
			}
			for _, n := range market.IDs(known) {
				k := known[n]
				fmt.Fprintf(out, "%s: %s (%s)", n, k.Source, k.Source.Source)
				if k.Commit != "" {
					fmt.Fprintf(out, " at %s", short(k.Commit))
				}
				fmt.Fprintln(out)
			}
			for _, n := range market.IDs(set.Policy.Extra) {
				if _, ok := known[n]; !ok {
					fmt.Fprintf(out, "%s: %s (%s; declared in %s, added at its first install)\n", n, set.Policy.Extra[n], set.Policy.Extra[n].Source, set.Policy.ExtraFrom[n])
				}
			}
			return nil
		},
	}
	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Forget a marketplace (plugins installed from it stay installed)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, _, _, _, err := pluginPlaces()
			if err != nil {
				return err
			}
			if err := st.RemoveMarket(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Removed marketplace %s\n", args[0])
			return nil
		},
	}
	c.AddCommand(add, list, remove)
	return c
}

// pluginID completes NAME to NAME@MARKET when one known marketplace has it installed or
// only one marketplace is known.
func pluginID(st market.Store, arg string, installedOnly bool) (string, error) {
	if strings.Contains(arg, "@") {
		return arg, nil
	}
	var ids []string
	if installedOnly {
		inst, err := st.Installed()
		if err != nil {
			return "", err
		}
		for id := range inst {
			if n, _, _ := market.SplitID(id); n == arg {
				ids = append(ids, id)
			}
		}
	} else if known, err := st.Markets(); err == nil && len(known) == 1 {
		for n := range known {
			ids = append(ids, arg+"@"+n)
		}
	}
	if len(ids) == 1 {
		return ids[0], nil
	}
	sort.Strings(ids)
	return "", fmt.Errorf("say which marketplace: NAME@MARKET (%s)", strings.Join(append(ids, "`ouro plugin marketplace list` shows them"), ", "))
}

func newPluginInstallCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "install NAME@MARKET",
		Short: "Install a plugin from a marketplace and enable it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, set, us, _, err := pluginPlaces()
			if err != nil {
				return err
			}
			id, err := pluginID(st, args[0], false)
			if err != nil {
				return err
			}
			rec, err := st.Install(id, set.Policy)
			if err != nil {
				return err
			}
			on := true
			if err := market.SetEnabled(us, id, &on); err != nil {
				return err
			}
			at := "a folder that is no git work tree"
			if rec.GitCommitSha != "" {
				at = "commit " + rec.GitCommitSha
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Installed %s %s from %s into %s, enabled in %s\n", id, rec.Version, at, rec.InstallPath, us)
			if ps, _ := plugin.Load([]string{rec.InstallPath}); len(ps) == 1 {
				for _, n := range market.IDs(ps[0].MCP.Servers) {
					fmt.Fprintf(cmd.OutOrStdout(), "Its MCP server %s starts once you approve it in a project (`ouro mcp approve %[1]s`, or the question in an interactive session)\n",
						mcpconf.PluginServerName(ps[0].Name, n))
				}
			}
			return nil
		},
	}
}

func newPluginUninstallCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall NAME@MARKET",
		Short: "Remove an installed plugin",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, _, us, _, err := pluginPlaces()
			if err != nil {
				return err
			}
			id, err := pluginID(st, args[0], true)
			if err != nil {
				return err
			}
			if err := st.Uninstall(id); err != nil {
				return err
			}
			if err := market.SetEnabled(us, id, nil); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Uninstalled %s\n", id)
			return nil
		},
	}
}

func newPluginEnableCmd(enable bool) *cobra.Command {
	verb, word := "enable", "Enabled"
	if !enable {
		verb, word = "disable", "Disabled"
	}
	return &cobra.Command{
		Use:   verb + " NAME@MARKET",
		Short: strings.ToUpper(verb[:1]) + verb[1:] + " an installed plugin for your sessions (enabledPlugins in ~/.ouro/settings.json)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, _, us, _, err := pluginPlaces()
			if err != nil {
				return err
			}
			id, err := pluginID(st, args[0], true)
			if err != nil {
				return err
			}
			inst, err := st.Installed()
			if err != nil {
				return err
			}
			if _, ok := inst[id]; !ok {
				return fmt.Errorf("plugin %q is not installed; install it with `ouro plugin install %s`", id, id)
			}
			if err := market.SetEnabled(us, id, &enable); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s in %s\n", word, id, us)
			return nil
		},
	}
}

func newPluginListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the installed plugins, enabled or not, and the commit each came from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, set, _, _, err := pluginPlaces()
			if err != nil {
				return err
			}
			inst, err := st.Installed()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(inst) == 0 {
				fmt.Fprintln(out, "No plugins installed. Install one with `ouro plugin install NAME@MARKET`.")
				return nil
			}
			for _, id := range market.IDs(inst) {
				r := inst[id]
				state := "disabled"
				if set.Enabled[id] {
					state = "enabled"
				}
				fmt.Fprintf(out, "%s %s: %s", id, r.Version, state)
				if r.GitCommitSha != "" {
					fmt.Fprintf(out, ", commit %s", short(r.GitCommitSha))
				}
				fmt.Fprintf(out, " (%s)\n", r.InstallPath)
			}
			return nil
		},
	}
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
