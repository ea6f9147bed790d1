//! Which shard this process is, read from a cluster scheduler's array job when the
//! command line gives no `--shard K/N`. SLURM states both the task and the count; the
//! others (HyperQueue, Kubernetes Indexed Jobs, PBS) only the task, so their count is
//! stated with `--shards N` and their variables are read only then (a HyperQueue task
//! outside an array has an id too). The environment is passed in as a lookup, so the
//! rules are tested without touching the process's own.

use super::AppError;

/// The shard this process runs, and where it came from (said on stderr and kept in the
/// part).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub k: u64,
    pub n: u64,
    /// E.g. `SLURM array task 3 of 8 (SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_MIN=1,
    /// SLURM_ARRAY_TASK_COUNT=8)`.
    pub from: String,
}

/// A scheduler that names the task only: its variable, how its first task is numbered,
/// and how to submit an array with that numbering.
struct IndexOnly {
    name: &'static str,
    var: &'static str,
    first: u64,
    submit: &'static str,
}

/// In the order they are looked for: the innermost first (HyperQueue's workers often run
/// inside a SLURM or PBS allocation).
const INDEX_ONLY: [IndexOnly; 4] = [
    IndexOnly {
        name: "HyperQueue",
        var: "HQ_TASK_ID",
        first: 1,
        submit: "hq submit --array 1-N",
    },
    IndexOnly {
        name: "Kubernetes Indexed Job",
        var: "JOB_COMPLETION_INDEX",
        first: 0,
        submit: "completionMode: Indexed, completions: N",
    },
    IndexOnly {
        name: "PBS Pro / OpenPBS array",
        var: "PBS_ARRAY_INDEX",
        first: 1,
        submit: "qsub -J 1-N",
    },
    IndexOnly {
        name: "Torque array",
        var: "PBS_ARRAYID",
        first: 1,
        submit: "qsub -t 1-N",
    },
];

/// Every variable [`find`] reads, for messages and for tests that clear them.
pub const VARIABLES: [&str; 8] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_STEP",
    "HQ_TASK_ID",
    "JOB_COMPLETION_INDEX",
    "PBS_ARRAY_INDEX",
    "PBS_ARRAYID",
];

/// The shard the environment names: `shards` is `--shards N` (needed by every scheduler
/// but SLURM, checked against SLURM's count). `Ok(None)`: no array job here, run whole.
pub fn find(
    env: &dyn Fn(&str) -> Option<String>,
    shards: Option<u64>,
) -> Result<Option<Found>, AppError> {
    let num = |var: &str| -> Result<Option<u64>, AppError> {
        match env(var) {
            None => Ok(None),
            Some(v) => v.trim().parse::<u64>().map(Some).map_err(|_| {
                AppError::BadOption(format!(
                    "{var}={v}: expected a task number; give --shard K/N to run without it"
                ))
            }),
        }
    };
    if let Some(n) = shards {
        if n == 0 || n > super::part::MAX_SHARDS {
            return Err(AppError::BadOption(format!(
                "--shards {n}: expected 1 to {}",
                super::part::MAX_SHARDS
            )));
        }
        for s in &INDEX_ONLY {
            let Some(id) = num(s.var)? else { continue };
            let last = s.first + n - 1;
            if id < s.first || id > last {
                return Err(AppError::BadOption(format!(
                    "{}={id}: with --shards {n}, {} tasks are numbered {}..{last} ({})",
                    s.var, s.name, s.first, s.submit
                )));
            }
            let k = id - s.first + 1;
            return Ok(Some(Found {
                k,
                n,
                from: format!("{} task {k} of {n} ({}={id}, --shards {n})", s.name, s.var),
            }));
        }
    }
    let Some(id) = num("SLURM_ARRAY_TASK_ID")? else {
        return match shards {
            Some(n) => Err(AppError::BadOption(format!(
                "--shards {n}: no array task in the environment (looked for {}); give --shard K/{n} to run one by hand",
                VARIABLES
                    .iter()
                    .filter(|v| !v.ends_with("_MIN") && !v.ends_with("_COUNT") && !v.ends_with("_STEP"))
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
            None => Ok(None),
        };
    };
    let need = |var: &str| -> Result<u64, AppError> {
        num(var)?.ok_or_else(|| {
            AppError::BadOption(format!(
                "SLURM_ARRAY_TASK_ID={id} but no {var}: give --shard K/N"
            ))
        })
    };
    let min = need("SLURM_ARRAY_TASK_MIN")?;
    let count = need("SLURM_ARRAY_TASK_COUNT")?;
    let step = num("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
    let bad = |why: &str| {
        AppError::BadOption(format!(
            "SLURM array task {id} (SLURM_ARRAY_TASK_MIN={min}, SLURM_ARRAY_TASK_STEP={step}, SLURM_ARRAY_TASK_COUNT={count}): {why}; submit with --array=1-N, or give --shard K/N"
        ))
    };
    if id < min || (id - min) % step != 0 {
        return Err(bad("not a task of an evenly stepped array"));
    }
    // ID - MIN < 2^64, so the place fits; +1 only overflows for an absurd array.
    let k = ((id - min) / step)
        .checked_add(1)
        .ok_or_else(|| bad("the task number is out of range"))?;
    if count == 0 || k > count {
        return Err(bad(
            "the array is not evenly stepped (a list such as 1,4,9)",
        ));
    }
    if let Some(n) = shards.filter(|&n| n != count) {
        return Err(AppError::BadOption(format!(
            "--shards {n}, but the SLURM array has {count} tasks (SLURM_ARRAY_TASK_COUNT): drop --shards or submit --array=1-{n}"
        )));
    }
    if count > super::part::MAX_SHARDS {
        return Err(bad(&format!("at most {} shards", super::part::MAX_SHARDS)));
    }
    Ok(Some(Found {
        k,
        n: count,
        from: format!(
            "SLURM array task {k} of {count} (SLURM_ARRAY_TASK_ID={id}, SLURM_ARRAY_TASK_MIN={min}, SLURM_ARRAY_TASK_COUNT={count}{})",
            if step > 1 { format!(", SLURM_ARRAY_TASK_STEP={step}") } else { String::new() }
        ),
    }))
}

/// The variables of schedulers that give no count, set here while `--shards` is not:
/// such a run is whole, and says why (a HyperQueue job of one task has an id too).
pub fn unused(env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let s = INDEX_ONLY.iter().find(|s| env(s.var).is_some())?;
    Some(format!(
        "{}={} is set, but {} gives no task count: this run is whole; give --shards N to run one shard of N",
        s.var,
        env(s.var).unwrap_or_default(),
        s.name
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| m.get(k).cloned()
    }

    fn shard(pairs: &[(&str, &str)], shards: Option<u64>) -> Result<Option<(u64, u64)>, String> {
        find(&env(pairs), shards)
            .map(|f| f.map(|f| (f.k, f.n)))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn no_scheduler_no_shard() {
        assert_eq!(shard(&[], None), Ok(None));
        assert_eq!(shard(&[("SLURM_JOB_ID", "77")], None), Ok(None));
    }

    #[test]
    fn slurm_gives_the_task_and_the_count() {
        let a = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
        ];
        assert_eq!(shard(&a, None), Ok(Some((3, 8))));
        let f = find(&env(&a), None).unwrap().unwrap();
        assert!(f.from.contains("SLURM_ARRAY_TASK_ID=3"), "{}", f.from);
        // Numbered from 0, from 5, or stepped: the task's place in the array.
        let zero = [
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(shard(&zero, None), Ok(Some((1, 4))));
        let stepped = [
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(shard(&stepped, None), Ok(Some((4, 4))));
        // --shards agreeing with the count is fine; disagreeing is refused.
        assert_eq!(shard(&a, Some(8)), Ok(Some((3, 8))));
        assert!(shard(&a, Some(4))
            .unwrap_err()
            .contains("SLURM array has 8 tasks"));
        // An uneven list (--array=1,4,9: task 9 is the third) cannot be read.
        let list = [
            ("SLURM_ARRAY_TASK_ID", "9"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        assert!(shard(&list, None)
            .unwrap_err()
            .contains("not evenly stepped"));
        // A task number past any real array is refused, not wrapped to shard 0.
        let huge = [
            ("SLURM_ARRAY_TASK_ID", "18446744073709551615"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        assert!(shard(&huge, None).is_err());
        // A missing count or a non-number is an error naming the variable.
        let e = shard(
            &[("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_MIN", "1")],
            None,
        )
        .unwrap_err();
        assert!(e.contains("SLURM_ARRAY_TASK_COUNT"), "{e}");
        let e = shard(&[("SLURM_ARRAY_TASK_ID", "x")], None).unwrap_err();
        assert!(e.contains("SLURM_ARRAY_TASK_ID=x"), "{e}");
    }

    #[test]
    fn hyperqueue_counts_tasks_from_one_with_a_stated_count() {
        assert_eq!(shard(&[("HQ_TASK_ID", "1")], Some(4)), Ok(Some((1, 4))));
        assert_eq!(shard(&[("HQ_TASK_ID", "4")], Some(4)), Ok(Some((4, 4))));
        // Without --shards the id is not read (a job of one task has id 0), and said so.
        assert_eq!(shard(&[("HQ_TASK_ID", "2")], None), Ok(None));
        assert!(unused(&env(&[("HQ_TASK_ID", "2")]))
            .unwrap()
            .contains("--shards N"));
        let e = shard(&[("HQ_TASK_ID", "0")], Some(4)).unwrap_err();
        assert!(
            e.contains("numbered 1..4") && e.contains("hq submit --array 1-N"),
            "{e}"
        );
        // Inside a SLURM array, HyperQueue's task is the one that runs.
        let both = [
            ("HQ_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "9"),
        ];
        assert_eq!(shard(&both, Some(3)), Ok(Some((2, 3))));
    }

    #[test]
    fn kubernetes_indexes_from_zero_with_a_stated_count() {
        assert_eq!(
            shard(&[("JOB_COMPLETION_INDEX", "0")], Some(8)),
            Ok(Some((1, 8)))
        );
        assert_eq!(
            shard(&[("JOB_COMPLETION_INDEX", "7")], Some(8)),
            Ok(Some((8, 8)))
        );
        let e = shard(&[("JOB_COMPLETION_INDEX", "8")], Some(8)).unwrap_err();
        assert!(e.contains("numbered 0..7"), "{e}");
        assert_eq!(shard(&[("JOB_COMPLETION_INDEX", "3")], None), Ok(None));
    }

    #[test]
    fn pbs_arrays_count_from_one_with_a_stated_count() {
        assert_eq!(
            shard(&[("PBS_ARRAY_INDEX", "2")], Some(5)),
            Ok(Some((2, 5)))
        );
        assert_eq!(shard(&[("PBS_ARRAYID", "5")], Some(5)), Ok(Some((5, 5))));
        let f = find(&env(&[("PBS_ARRAYID", "5")]), Some(5))
            .unwrap()
            .unwrap();
        assert!(f.from.contains("Torque"), "{}", f.from);
    }

    #[test]
    fn a_stated_count_without_a_task_is_an_error() {
        let e = shard(&[], Some(4)).unwrap_err();
        assert!(
            e.contains("no array task") && e.contains("--shard K/4"),
            "{e}"
        );
        assert!(shard(&[("HQ_TASK_ID", "1")], Some(0)).is_err());
    }
}
