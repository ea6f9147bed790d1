#!/usr/bin/env bash
# slurm-down.sh DIR -- stop the cluster started by `slurm-up.sh DIR`:
# cancel its leftover jobs, SIGTERM slurmd + slurmctld, then munged (found via
# their pid files in DIR), waiting until each is gone (SIGKILL after 15 s).
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 DIR" >&2; exit 2; }
DIR=$(cd "$1" && pwd -P)

# pid_of NAME: pid from DIR/NAME.pid if that process is still NAME (guards
# against a recycled pid), else nothing.
pid_of() {
  local pid
  [[ -f $DIR/$1.pid ]] || return 0
  pid=$(<"$DIR/$1.pid")
  [[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == "$1" ]] && echo "$pid"
  return 0
}
# alive PID...: true while any PID still runs (a zombie counts as gone).
alive() {
  local pid st
  for pid in "$@"; do
    st=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
    st=${st##*) }; [[ ${st:0:1} != Z ]] && return 0
  done
  return 1
}
# stop NAME...: SIGTERM them all, wait up to 15 s, then SIGKILL what is left.
stop() {
  local name pids=() pid
  for name in "$@"; do pid=$(pid_of "$name"); [[ -n $pid ]] && pids+=("$pid"); done
  if ((${#pids[@]})); then
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for _ in $(seq 150); do alive "${pids[@]}" || break; sleep 0.1; done
    if alive "${pids[@]}"; then
      echo "slurm-down: ${pids[*]} ignored SIGTERM for 15 s, sending SIGKILL" >&2
      kill -KILL "${pids[@]}" 2>/dev/null || true
      for _ in $(seq 50); do alive "${pids[@]}" || break; sleep 0.1; done
    fi
  fi
  for name in "$@"; do rm -f "$DIR/$name.pid"; done
}

# Running jobs' slurmstepd processes would outlive slurmd: cancel them first
# and wait (bounded) until the queue is empty.  Skipped if slurmctld is gone
# (the clients would retry for ~18 s).
if [[ -n $(pid_of slurmctld) && -f $DIR/slurm.conf ]]; then
  export SLURM_CONF=$DIR/slurm.conf
  if timeout 10 scancel --user=root >/dev/null 2>&1; then
    for _ in $(seq 20); do
      # default squeue lists only pending/running/completing jobs
      [[ -z $(timeout 5 squeue -h -o %i 2>/dev/null) ]] && break
      sleep 0.5
    done
  fi
fi

stop slurmd slurmctld   # both still need munged while shutting down
stop munged
