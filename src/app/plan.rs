//! `rollsim plan`: ready scripts that run one command as N shards on a cluster scheduler
//! and merge them. Each shard task finds its shard in the scheduler's variables
//! ([`super::scheduler`]), writes its part into one folder, and the merge reads that
//! folder once every task has finished.

use std::path::{Path, PathBuf};

/// One command spread over `tasks` shards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// `run`, `compare`, ...
    pub command: String,
    /// A task's arguments after the program: the command, the config, its options and
    /// `-o PARTS`.
    pub args: Vec<String>,
    /// Where the parts go (beside the output folder).
    pub parts: PathBuf,
    /// Where the merge writes.
    pub out: PathBuf,
    /// The merge's own flags that decide what it writes (`--no-plots`, `--charts`,
    /// `--format`), as the command was given them.
    pub merge_flags: Vec<String>,
    pub tasks: u64,
    /// The program a SLURM or HyperQueue task runs (`rollsim` when that is the one on
    /// the PATH, else this binary's path).
    pub program: String,
    /// A name for the jobs: `rollsim-compare-mygame`.
    pub name: String,
}

/// Quote for a POSIX shell (only where needed, so the scripts read as typed).
pub fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A string for YAML (JSON's quoting is YAML's).
fn yaml(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// A job name any scheduler and shell take: letters, digits, `-` and `_`.
fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// A Kubernetes name: lower case letters, digits and `-`, at most 63 characters.
fn dns(s: &str) -> String {
    let mut out: String = s
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    out.truncate(52);
    out.trim_matches('-').to_string()
}

/// A Job's pod: one container of the rollsim image in the shared working folder.
fn pod(name: &str, command: &str, args: &str, one_cpu: bool) -> String {
    let resources = if one_cpu {
        "          resources:\n            requests:\n              cpu: \"1\"\n"
    } else {
        ""
    };
    format!(
        r#"      restartPolicy: Never
      containers:
        - name: {name}
          image: rollsim:latest
          workingDir: /work
          command: {command}
          args: [{args}]
{resources}          volumeMounts:
            - name: work
              mountPath: /work
      volumes:
        - name: work
          persistentVolumeClaim:
            claimName: rollsim-work
"#
    )
}

impl Plan {
    /// `command`'s task for shard runs: `args` with `-o PARTS`, for `tasks` shards; the
    /// merge writes `out` with `merge_flags`.
    pub fn new(
        command: &str,
        config: &Path,
        options: &[String],
        (parts, out): (PathBuf, PathBuf),
        merge_flags: Vec<String>,
        tasks: u64,
        program: String,
    ) -> Plan {
        let stem = config
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let mut args = vec![command.to_string(), config.display().to_string()];
        args.extend(options.iter().cloned());
        args.extend(["-o".into(), parts.display().to_string()]);
        Plan {
            command: command.to_string(),
            args,
            parts,
            out,
            merge_flags,
            tasks,
            program,
            name: slug(&format!("rollsim-{command}-{stem}")),
        }
    }

    fn line(&self, program: &str, extra: &[String]) -> String {
        std::iter::once(quote(program))
            .chain(self.args.iter().chain(extra).map(|a| quote(a)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn merge_line(&self, program: &str) -> String {
        let mut line = format!(
            "{} merge {} -o {}",
            quote(program),
            quote(&self.parts.display().to_string()),
            quote(&self.out.display().to_string())
        );
        for f in &self.merge_flags {
            line.push(' ');
            line.push_str(&quote(f));
        }
        line
    }

    fn what(&self) -> String {
        format!(
            "`{}` as {} shards",
            self.line("rollsim", &[]).replace(
                &format!(" -o {}", quote(&self.parts.display().to_string())),
                ""
            ),
            self.tasks
        )
    }

    /// A bash script that submits the array job (each task reads its shard from
    /// SLURM_ARRAY_TASK_ID) and the merge as a job that starts once every task succeeded.
    pub fn slurm(&self) -> String {
        let parts = quote(&self.parts.display().to_string());
        format!(
            r#"#!/bin/bash
# rollsim plan: {what} on SLURM, then the merge.
# Run it from the folder the paths are relative to: bash {name}.sh
# bash {name}.sh --wait blocks until the merge job has ended (if a shard fails, the
# merge is cancelled and never writes: the tasks' slurm-*.out files say why).
set -euo pipefail
# The parts of an earlier run of this plan would be merged with this one's: gone first.
mkdir -p {parts} && rm -f {parts}/part-*-of-*.json
array=$(sbatch --parsable --job-name={name} --array=1-{n} --cpus-per-task=1 \
    --output={parts}/slurm-%A_%a.out <<'EOF'
#!/bin/bash
# Each task finds its shard in SLURM_ARRAY_TASK_ID, _MIN and _COUNT.
exec {task}
EOF
)
sbatch --parsable --job-name={name}-merge --dependency=afterok:"${{array%%;*}}" \
    --kill-on-invalid-dep=yes --output={parts}/slurm-merge-%j.out "$@" \
    --wrap={merge}
"#,
            what = self.what(),
            name = self.name,
            n = self.tasks,
            task = self.line(&self.program, &[]),
            merge = quote(&format!("exec {}", self.merge_line(&self.program))),
        )
    }

    /// A bash script for a running HyperQueue server and workers: an array of N tasks
    /// (HQ_TASK_ID 1..N, the count stated with --shards), then the merge.
    pub fn hyperqueue(&self) -> String {
        format!(
            r#"#!/bin/bash
# rollsim plan: {what} on HyperQueue, then the merge.
# Needs a server and workers (hq server start; hq worker start, or hq alloc add slurm ...).
set -euo pipefail
# The parts of an earlier run of this plan would be merged with this one's: gone first.
mkdir -p {parts} && rm -f {parts}/part-*-of-*.json
hq submit --name={name} --array=1-{n} --cpus=1 --wait -- \
    {task}
{merge}
"#,
            what = self.what(),
            parts = quote(&self.parts.display().to_string()),
            name = self.name,
            n = self.tasks,
            task = self.line(&self.program, &["--shards".into(), self.tasks.to_string()]),
            merge = self.merge_line(&self.program),
        )
    }

    /// An Indexed Job of N pods (JOB_COMPLETION_INDEX 0..N-1, the count stated with
    /// --shards) and a merge Job that waits for the N parts, on a shared volume.
    pub fn kubernetes(&self) -> String {
        let name = dns(&self.name);
        let args: Vec<String> = self
            .args
            .iter()
            .cloned()
            .chain(["--shards".into(), self.tasks.to_string()])
            .map(|a| yaml(&a))
            .collect();
        let parts = self.parts.display().to_string();
        let wait = format!(
            "until [ \"$(ls {p} 2>/dev/null | grep -c -E '^part-[0-9]+-of-{n}[.]json$')\" -ge {n} ]; do sleep 10; done; exec {merge}",
            p = quote(&parts),
            n = self.tasks,
            merge = self.merge_line("rollsim"),
        );
        format!(
            r#"# rollsim plan: {what} on Kubernetes, then the merge.
# kubectl apply -f {name}.yaml starts both Jobs; the merge waits for the {n} parts, so
# delete {parts} (the parts of an earlier run) before applying it again.
# The pods need an image with rollsim on its PATH (set `image`) and the working folder
# (the config; the parts and the output are written there) on a volume every pod can
# write (ReadWriteMany; set `claimName`).
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
spec:
  completionMode: Indexed
  completions: {n}
  parallelism: {n}
  backoffLimit: {retries}
  template:
    spec:
{shard_pod}---
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}-merge
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 604800
  template:
    spec:
{merge_pod}"#,
            what = self.what(),
            parts = parts,
            n = self.tasks,
            retries = self.tasks.saturating_mul(2).min(1000),
            shard_pod = pod("shard", r#"["rollsim"]"#, &args.join(", "), true),
            merge_pod = pod("merge", r#"["sh", "-c"]"#, &yaml(&wait), false),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan::new(
            "roster",
            Path::new("configs/game.toml"),
            &[
                "-s".into(),
                "duel".into(),
                "--set".into(),
                "units.orc.name=Big Orc".into(),
            ],
            (
                PathBuf::from("reports/game/roster-parts"),
                PathBuf::from("reports/game/roster"),
            ),
            vec!["--no-plots".into()],
            4,
            "rollsim".into(),
        )
    }

    #[test]
    fn quoting_leaves_plain_words_and_quotes_the_rest() {
        assert_eq!(quote("configs/game.toml"), "configs/game.toml");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(dns("rollsim-compare-My_Game"), "rollsim-compare-my-game");
        assert_eq!(slug("rollsim-run-my game $(x)"), "rollsim-run-my-game---x-");
    }

    #[test]
    fn every_script_runs_the_same_task_and_merges_its_parts() {
        let p = plan();
        assert_eq!(p.parts, PathBuf::from("reports/game/roster-parts"));
        let task = "roster configs/game.toml -s duel --set 'units.orc.name=Big Orc' -o reports/game/roster-parts";
        let s = p.slurm();
        assert!(s.contains("--array=1-4"), "{s}");
        assert!(s.contains(&format!("exec rollsim {task}\n")), "{s}");
        assert!(s.contains("--dependency=afterok:"), "{s}");
        assert!(
            s.contains(
                "--wrap='exec rollsim merge reports/game/roster-parts -o reports/game/roster --no-plots'"
            ),
            "{s}"
        );
        let h = p.hyperqueue();
        assert!(h.contains("--array=1-4"), "{h}");
        assert!(h.contains(&format!("rollsim {task} --shards 4\n")), "{h}");
        assert!(
            h.contains("rollsim merge reports/game/roster-parts -o reports/game/roster --no-plots")
        );
        // A program path with a space is one word.
        let mut q = plan();
        q.program = "/opt/my tools/rollsim".into();
        assert!(
            q.slurm().contains("exec '/opt/my tools/rollsim' roster"),
            "{}",
            q.slurm()
        );
        let k = p.kubernetes();
        assert!(
            k.contains("completionMode: Indexed") && k.contains("completions: 4"),
            "{k}"
        );
        assert!(
            k.contains(
                r#""units.orc.name=Big Orc", "-o", "reports/game/roster-parts", "--shards", "4"]"#
            ),
            "{k}"
        );
        assert!(k.contains("-of-4[.]json$')\\\" -ge 4 ]"), "{k}");
    }
}
