"""Each command's one-line summary (``ndbtop --help``) and description
(``ndbtop COMMAND --help``, the manual page and the shell completions)."""

from __future__ import annotations

DESCRIPTIONS = {
    "demo": ("watch a simulated cluster (no server needed)",
             "Start a simulated cluster on loopback ports and watch it with ndbtop. Its "
             "start history and audit log go to a temporary directory of the run's own "
             "($TMPDIR/ndbtop-demo-*), removed when it ends: nothing of the demo is left in "
             "~/.local/state/ndbtop but the recordings made with R. Sped up, the demo runs on "
             "simulated time: every duration shown is in simulated seconds (the header says "
             "so)."),
    "sim": ("run a simulated cluster for other clients",
            "Serve a simulated ndb_mgmd and SQL node on loopback ports until interrupted. "
            "Durations, ages and times are served in real seconds at any --speed (the "
            "cluster runs that much faster), as a client timing on its own clock measures "
            "them."),
    "wait": ("wait until data nodes reach a state (like ndb_waiter)",
             "Wait until the data nodes reach a state, printing one line per node change. "
             "Exit 0 when reached, 1 on timeout, 3 when the management server cannot be "
             "reached."),
    "rolling-restart": ("restart the data nodes one at a time, guarded",
                        "Restart the data nodes one at a time (or one per node group, together "
                        "with -a), each after its partners are STARTED, waiting for it to be "
                        "STARTED again. "
                        "Findings that hold the next step (critical ones; warnings about redo "
                        "space, the GCP, the LCP, heartbeats or the next node's group) pause "
                        "the run until they clear (--gate-wait bounds it where no one is "
                        "asked). "
                        "Asks on any refusal, timeout or failure (--yes: never asks, aborts). "
                        "Ctrl-C stops at once and exits 130. Everything sent is audited, "
                        "naming the management server."),
    "mgm": ("ndb_mgm's commands, guarded, confirmed and audited",
            "Run ndb_mgm's commands (SHOW, N STATUS, N RESTART [-n] [-i] [-a] [-f], N STOP, "
            "N START, REPORT, CLUSTERLOG, START/ABORT BACKUP, ENTER/EXIT SINGLE USER MODE) "
            "with ndbtop's guards: each change is shown with its exact request and the "
            "management server it goes to, confirmed (a typed phrase for dangerous ones: "
            "--confirm), and audited. -e runs one command; without it, a prompt. DUMP is "
            "never sent."),
    "record": ("record the cluster to a file, without the live view",
               "Write every snapshot and every event to FILE (compressed JSON lines) until "
               "interrupted or --duration."),
    "replay": ("watch a recording in the live view (read-only)",
               "Open the live view on a recording: space plays or pauses, . and , step, ] and "
               "[ jump a minute, > and < change the speed."),
    "export": ("serve the cluster's figures to Prometheus over HTTP",
               "Run the same sources as the live view every --interval and serve their last "
               "figures at /metrics for Prometheus (text or OpenMetrics). A scrape never "
               "queries the cluster. Logs one line per source state change; stops on "
               "SIGTERM."),
    "check": ("the findings as one monitoring-plugin line (Nagios, Icinga, Zabbix)",
              "Collect once, judge the cluster by the findings' rules and print one line with "
              "perfdata. Exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (the management server "
              "cannot be reached, or a usage error)."),
    "config": ("print the cluster configuration in config.ini form",
               "Read the configuration from the management server (get config_v2) and print "
               "it in config.ini form: every section, the parameters that differ from "
               "ConfigInfo's default (--all: every one). --diff FILE compares it with a "
               "config.ini, --diff-running with what the data nodes run."),
    "report": ("collect a triage bundle to attach to a ticket",
               "Collect the --once report, recent events, log levels, memory reports, a "
               "recording's tail and the audit log into one .tar.gz. No password goes in."),
    "contexts": ("list the contexts of clusters.toml and whether each answers now",
                 "List the contexts of $XDG_CONFIG_HOME/ndbtop/clusters.toml "
                 "(~/.config/ndbtop/clusters.toml): name, management servers, production and "
                 "read_only, and whether its management server answers now (asked in "
                 "parallel, a few seconds at most). Exit 0 when every one answers, 3 when one "
                 "does not."),
    "fleet": ("one row per context: versions, nodes, findings, restarts, backups",
              "Watch every context of clusters.toml at once: per cluster its version, data "
              "nodes started of configured, node groups at risk, the most severe finding, a "
              "start, restart or backup in progress with its ETA, and the age of its last "
              "answer, from its management server only. Enter opens a cluster in the live "
              "view (F there comes back). A cluster that does not answer is a row that says "
              "why."),
    "completion": ("print the shell completion script for bash, zsh or fish",
                   "Print the completion script of ndbtop's commands, options and values for "
                   "SHELL. bash: eval \"$(ndbtop completion bash)\" in ~/.bashrc; zsh: save it "
                   "as _ndbtop in a directory of $fpath; fish: save it as "
                   "~/.config/fish/completions/ndbtop.fish."),
    "man": ("print the manual page ndbtop(1)",
            "Print the manual page, ndbtop(1): through man on a terminal, else its roff source "
            "(ndbtop man > ndbtop.1)."),
}
"""Each command's one-line summary (ndbtop --help) and description (ndbtop COMMAND --help)."""
