//! The command line.

pub const USAGE: &str = "usage:
  ad-fuzz programs  [--count N] [--seed S] [--batch B] [--no-reduce]
  ad-fuzz mutations [--count N] [--seed S] [--batch B]
  ad-fuzz ci
  ad-fuzz show      [--seed S] [--count N]";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Programs,
    Mutations,
    Ci,
    Show,
}

pub struct Args {
    pub command: Command,
    count: Option<usize>,
    seed: Option<u64>,
    batch: Option<usize>,
    no_reduce: bool,
}

/// What a campaign of random programs does.
#[derive(Clone, Debug)]
pub struct ProgramOptions {
    pub count: usize,
    pub seed: u64,
    /// Functions compiled together in one crate.
    pub batch: usize,
    /// Shrink each failing function to a small reproducer.
    pub reduce: bool,
    /// Name of the scratch crate (campaigns with different names can run side by side).
    pub scratch: String,
}

/// What a campaign of token mutations does.
#[derive(Clone, Debug)]
pub struct MutationOptions {
    pub count: usize,
    pub seed: u64,
    pub batch: usize,
    pub scratch: String,
}

impl ProgramOptions {
    /// The small fixed-seed campaign `.ci/run` runs.
    pub fn ci() -> ProgramOptions {
        ProgramOptions {
            count: 200,
            seed: 2026,
            batch: 100,
            reduce: true,
            scratch: "ci_programs".to_string(),
        }
    }
}

impl MutationOptions {
    /// The small fixed-seed mutation campaign `.ci/run` runs.
    pub fn ci() -> MutationOptions {
        MutationOptions {
            count: 400,
            seed: 2026,
            batch: 100,
            scratch: "ci_mutations".to_string(),
        }
    }
}

impl Args {
    pub fn parse(mut words: impl Iterator<Item = String>) -> Result<Args, String> {
        let command = match words.next().as_deref() {
            Some("programs") => Command::Programs,
            Some("mutations") => Command::Mutations,
            Some("ci") => Command::Ci,
            Some("show") => Command::Show,
            Some(other) => return Err(format!("unknown command `{other}`")),
            None => return Err("which command?".to_string()),
        };
        let mut args = Args {
            command,
            count: None,
            seed: None,
            batch: None,
            no_reduce: false,
        };
        while let Some(flag) = words.next() {
            let mut value = |name: &str| {
                words
                    .next()
                    .ok_or_else(|| format!("`{name}` needs a value"))
            };
            match flag.as_str() {
                "--count" | "--programs" | "--mutations" => {
                    args.count = Some(number(&flag, &value(&flag)?)?)
                }
                "--seed" => args.seed = Some(number(&flag, &value(&flag)?)?),
                "--batch" => args.batch = Some(number(&flag, &value(&flag)?)?),
                "--no-reduce" => args.no_reduce = true,
                other => return Err(format!("unknown flag `{other}`")),
            }
        }
        Ok(args)
    }

    pub fn programs(&self) -> ProgramOptions {
        ProgramOptions {
            count: self.count.unwrap_or(1000),
            seed: self.seed.unwrap_or(1),
            batch: self.batch.unwrap_or(100).max(1),
            reduce: !self.no_reduce,
            // One scratch crate per seed: campaigns of different seeds run side by side.
            scratch: format!("programs-seed{}", self.seed.unwrap_or(1)),
        }
    }

    pub fn mutations(&self) -> MutationOptions {
        MutationOptions {
            count: self.count.unwrap_or(1000),
            seed: self.seed.unwrap_or(1),
            // Measured: cost per mutant grows with the batch; 100 is the fastest.
            batch: self.batch.unwrap_or(100).max(1),
            scratch: "mutations".to_string(),
        }
    }
}

fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("`{flag}` takes a number, not `{text}`"))
}
