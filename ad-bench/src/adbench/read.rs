//! Reading ADBench's whitespace-separated files.

use std::path::Path;

/// The numbers of a file, in order; lines starting with `#` are comments.
pub fn numbers(path: &Path) -> std::io::Result<Vec<f64>> {
    let text = std::fs::read_to_string(path)?;
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .flat_map(str::split_whitespace)
        .map(|word| {
            word.parse::<f64>().map_err(|error| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}: `{word}` is not a number: {error}", path.display()),
                )
            })
        })
        .collect()
}

/// Consumes numbers from the front.
pub struct Numbers {
    values: std::vec::IntoIter<f64>,
}

impl Numbers {
    pub fn open(path: &Path) -> std::io::Result<Self> {
        Ok(Numbers {
            values: numbers(path)?.into_iter(),
        })
    }

    pub fn number(&mut self) -> f64 {
        self.values
            .next()
            .expect("the file has fewer numbers than its header says")
    }

    pub fn count(&mut self) -> usize {
        self.number() as usize
    }

    pub fn take(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.number()).collect()
    }
}
