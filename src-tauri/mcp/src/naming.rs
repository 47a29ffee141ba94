//! The names MCP tools get in Gantry's registry.
//!
//! Providers accept tool names matching `^[a-zA-Z0-9_-]{1,64}$`, and two servers may both have a
//! `search` tool. So a server's tool is registered as `mcp__{server}__{tool}` (the convention
//! Claude Code uses), with every other character replaced by `_`. A name longer than 64 is cut
//! and given a suffix derived from the full name by SHA-256, so it stays the same from one run to
//! the next (the model, the policies and the audit log all key on it).

use sha2::{Digest, Sha256};

/// Characters kept from the hash when a name is shortened.
const HASH_CHARS: usize = 8;
/// The longest name providers accept.
pub const MAX_NAME_LEN: usize = 64;

/// Replaces every character outside `[a-zA-Z0-9_-]` by `_`.
pub fn sanitize(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The registry name of `tool` on `server`: `mcp__{server}__{tool}`, sanitised, and shortened
/// with a stable hash suffix when longer than 64 characters.
pub fn tool_name(server: &str, tool: &str) -> String {
    let full = format!("mcp__{}__{}", sanitize(server), sanitize(tool));
    if full.len() <= MAX_NAME_LEN {
        return full;
    }
    shorten(&full, &format!("{server}\u{0}{tool}"))
}

/// `name` cut to fit 64 characters with `_` and a hash of `key` at the end.
pub fn shorten(name: &str, key: &str) -> String {
    let digest = hex(&Sha256::digest(key.as_bytes()));
    let keep = MAX_NAME_LEN - HASH_CHARS - 1;
    // Sanitised names are ASCII, so byte indices are character indices.
    let head = &name[..name.len().min(keep)];
    format!("{head}_{}", &digest[..HASH_CHARS])
}

/// A name not yet in `taken`: `name` itself, or a hashed variant of it (two tool names of one
/// server that sanitise to the same string).
pub fn unique(name: String, key: &str, taken: &std::collections::BTreeSet<String>) -> String {
    if !taken.contains(&name) {
        return name;
    }
    let mut salt = 0u32;
    loop {
        let candidate = shorten(&name, &format!("{key}\u{0}{salt}"));
        if !taken.contains(&candidate) {
            return candidate;
        }
        salt += 1;
    }
}

/// The registry names of all of `server`'s tools, in the order of `remote` (the names the
/// server listed).
///
/// The result depends only on the set of names, never on the order the server listed them in,
/// so a server that lists `a.b` and `a_b` in a different order on its next start does not
/// swap their names (policies, the audit log and the model's memory of the conversation key
/// on them). When several tools sanitise to the same name, the one whose name needs no
/// sanitising keeps it (`a_b` stays `mcp__s__a_b`), otherwise the smallest name in byte order
/// does; the others get the hashed variant of [`unique`].
pub fn assign_names(server: &str, remote: &[String]) -> Vec<String> {
    let mut order: Vec<usize> = (0..remote.len()).collect();
    order.sort_by(|&a, &b| {
        let clean = |index: usize| sanitize(&remote[index]) == remote[index];
        clean(b)
            .cmp(&clean(a))
            .then_with(|| remote[a].cmp(&remote[b]))
    });
    let mut taken = std::collections::BTreeSet::new();
    let mut names: Vec<Option<String>> = vec![None; remote.len()];
    // First every plain name that is still free, then hashed variants for the rest.
    for &index in &order {
        let plain = tool_name(server, &remote[index]);
        if taken.insert(plain.clone()) {
            names[index] = Some(plain);
        }
    }
    for &index in &order {
        if names[index].is_none() {
            let name = unique(
                tool_name(server, &remote[index]),
                &format!("{server}\u{0}{}", remote[index]),
                &taken,
            );
            taken.insert(name.clone());
            names[index] = Some(name);
        }
    }
    names.into_iter().map(Option::unwrap_or_default).collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use gantry_tools::is_valid_tool_name;

    use super::*;

    #[test]
    fn names_are_prefixed_and_sanitised() {
        assert_eq!(tool_name("everything", "echo"), "mcp__everything__echo");
        assert_eq!(
            tool_name("my server", "get.sum/v2"),
            "mcp__my_server__get_sum_v2"
        );
        assert_eq!(tool_name("a", "é"), "mcp__a___");
    }

    #[test]
    fn long_names_are_shortened_stably_and_stay_distinct() {
        let long_tool = "x".repeat(80);
        let first = tool_name("server", &long_tool);
        assert_eq!(first.len(), MAX_NAME_LEN);
        assert!(is_valid_tool_name(&first), "{first}");
        assert_eq!(first, tool_name("server", &long_tool));
        let other = tool_name("server", &format!("{long_tool}y"));
        assert_ne!(first, other);
        assert!(first.starts_with("mcp__server__xxxx"));
    }

    /// Every permutation of `items`.
    fn permutations(items: &[&str]) -> Vec<Vec<String>> {
        if items.len() <= 1 {
            return vec![items.iter().map(|s| (*s).to_owned()).collect()];
        }
        let mut all = Vec::new();
        for (index, first) in items.iter().enumerate() {
            let mut rest = items.to_vec();
            rest.remove(index);
            for mut tail in permutations(&rest) {
                tail.insert(0, (*first).to_owned());
                all.push(tail);
            }
        }
        all
    }

    #[test]
    fn clashing_names_are_the_same_in_any_listing_order() {
        let tools = ["a.b", "a/b", "a_b", "c", "a b"];
        let mut seen: Option<std::collections::BTreeMap<String, String>> = None;
        for listing in permutations(&tools) {
            let names = assign_names("s", &listing);
            let mapping: std::collections::BTreeMap<String, String> =
                listing.iter().cloned().zip(names.iter().cloned()).collect();
            let distinct: BTreeSet<&String> = names.iter().collect();
            assert_eq!(distinct.len(), tools.len(), "{names:?}");
            assert!(
                names.iter().all(|name| is_valid_tool_name(name)),
                "{names:?}"
            );
            match &seen {
                None => seen = Some(mapping),
                Some(first) => assert_eq!(first, &mapping, "listing {listing:?}"),
            }
        }
        let mapping = seen.unwrap();
        // The name that needs no sanitising keeps the plain form; others are hashed.
        assert_eq!(mapping["a_b"], "mcp__s__a_b");
        assert_eq!(mapping["c"], "mcp__s__c");
        assert!(mapping["a.b"].starts_with("mcp__s__a_b_") && mapping["a.b"].len() > 12);

        // Without a clean name, the smallest one in byte order keeps it.
        for listing in permutations(&["x/y", "x.y"]) {
            let names = assign_names("s", &listing);
            let dot = listing.iter().position(|n| n == "x.y").unwrap();
            assert_eq!(names[dot], "mcp__s__x_y", "{listing:?}");
        }
    }

    #[test]
    fn clashes_within_a_server_get_a_hashed_variant() {
        let mut taken = BTreeSet::new();
        let a = unique(tool_name("s", "a.b"), "a.b", &taken);
        taken.insert(a.clone());
        let b = unique(tool_name("s", "a_b"), "a_b", &taken);
        assert_eq!(a, "mcp__s__a_b");
        assert_ne!(a, b);
        assert!(is_valid_tool_name(&b), "{b}");
    }
}
