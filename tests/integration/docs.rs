//! The documentation's examples work: every `console` block of README.md and docs/*.md runs
//! through trycmd on a simulated DGX A100 (a fresh state directory per page, as the README's tour
//! sets one up), its exit status and output checked; every other block that runs gpushare says
//! first what it needs that a simulated node cannot give (`# needs a GPU`, `# needs a cluster`,
//! …); and every link between the pages lands on a page and a heading that exist.

use crate::common::repo;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn pages() -> Vec<PathBuf> {
    let mut out = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// (line, language, body) of each fenced block.
fn blocks(text: &str) -> Vec<(usize, String, Vec<String>)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String, Vec<String>)> = None;
    for (i, line) in text.lines().enumerate() {
        match (line.strip_prefix("```"), open.take()) {
            (Some(lang), None) => open = Some((i + 1, lang.trim().to_string(), Vec::new())),
            (Some(_), Some(block)) => out.push(block),
            (None, Some(mut block)) => {
                block.2.push(line.to_string());
                open = Some(block);
            }
            (None, None) => {}
        }
    }
    out
}

#[test]
fn console_examples_run_on_a_simulated_node() {
    let bin = assert_cmd::cargo::cargo_bin!("gpushare");
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        if !blocks(&text).iter().any(|b| b.1 == "console") {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let state = |name: &str| dir.path().join(name).display().to_string();
        trycmd::TestCases::new()
            .register_bin("gpushare", bin)
            .env("GPUSHARE_SIM", "dgx-a100")
            .env("GPUSHARE_SIM_STATE", state("node.json"))
            .env("GPUSHARE_ROOT", state(""))
            .env("NO_COLOR", "1")
            .case(&page)
            .run();
    }
}

#[test]
fn examples_that_are_not_run_say_what_they_need() {
    let mut unmarked = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (line, lang, body) in blocks(&text) {
            let runs_gpushare = body.iter().any(|l| {
                let l = l.trim_start().trim_start_matches("sudo ");
                l.starts_with("gpushare ")
                    || l.contains("| gpushare ")
                    || l.contains("&& gpushare ")
            });
            // A script's shebang comes first.
            let first = body.iter().find(|l| !l.starts_with("#!"));
            let marked = first.is_some_and(|l| l.starts_with("# needs ") || l.starts_with("$ "));
            if matches!(lang.as_str(), "sh" | "bash" | "") && runs_gpushare && !marked {
                unmarked.push(format!("{}:{line}", page.display()));
            }
        }
    }
    assert!(
        unmarked.is_empty(),
        "blocks that run gpushare but are neither `console` (tested) nor start with `# needs …`:\n{}",
        unmarked.join("\n")
    );
}

/// GitHub's anchor of a heading.
fn anchor(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == ' ' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(page: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(page).unwrap();
    let mut fenced = false;
    text.lines()
        .filter(|l| {
            if l.starts_with("```") {
                fenced = !fenced;
            }
            !fenced && l.starts_with('#')
        })
        .map(anchor)
        .collect()
}

#[test]
fn links_between_the_pages_land() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.starts_with("http") || target.contains(' ') {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let file = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            let lands = file.exists()
                && (fragment.is_empty()
                    || file.extension().is_none_or(|e| e != "md")
                    || anchors(&file).contains(fragment));
            if !lands {
                broken.push(format!("{}: {target}", page.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links that land nowhere:\n{}",
        broken.join("\n")
    );
}
