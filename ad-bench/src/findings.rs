//! The written reading of the numbers: each benchmark adds sentences computed from what it
//! measured, and the program prints them last, so the reading always matches the tables.

use std::sync::Mutex;

static FINDINGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Adds one sentence (or short paragraph) to the reading.
pub fn note(sentence: String) {
    FINDINGS.lock().expect("findings").push(sentence);
}

/// Prints the reading as a Markdown section.
pub fn print() {
    let findings = FINDINGS.lock().expect("findings");
    if findings.is_empty() {
        return;
    }
    println!("## What the numbers say");
    println!();
    for finding in findings.iter() {
        println!("* {finding}");
    }
    println!();
}
