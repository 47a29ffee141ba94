//! File contents of checkpoints: content-addressed, deduplicated, compressed blobs.
//!
//! A blob is named by the SHA-256 of the content it holds (`ab/cdef…`, sharded by the first two
//! hex digits), so the same content is stored once however many checkpoints name it — a file
//! edited back and forth, the same file in two sessions, the baseline a command snapshot read.
//! Each blob file is one marker byte and the content: `z` + a raw deflate stream, or `r` + the
//! bytes as they are when deflate would not make them smaller (already compressed data).
//!
//! **Why deflate (flate2 over miniz_oxide).** It is pure Rust (no C toolchain or system library
//! to build, unlike zstd's bindings), it is already in Gantry's dependency graph through Tauri,
//! and on source text it saves 65–80 % at the default level. zstd would compress faster and a
//! little better; the difference is small next to the decision that matters, which is to store
//! each version once.
//!
//! Blobs are written to a temporary file (with the user-only permissions `tempfile` gives) and
//! renamed into place, without an fsync each (a
//! baseline can be tens of thousands of blobs): a blob left incomplete by a crash is caught
//! because every read checks the content against its name, and a put rewrites a blob whose
//! file is empty.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use sha2::{Digest, Sha256};

/// The marker of a deflated blob.
const DEFLATED: u8 = b'z';
/// The marker of a blob stored as it is.
const RAW: u8 = b'r';

/// A content's name: its SHA-256, in lower-case hex.
pub fn hash_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        hex.push(char::from(b"0123456789abcdef"[usize::from(byte & 0xf)]));
    }
    hex
}

/// True for a string that can name a blob (64 lower-case hex digits).
fn is_hash(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The blobs of one project's checkpoints, in one folder.
#[derive(Debug, Clone)]
pub struct BlobStore {
    dir: PathBuf,
}

impl BlobStore {
    /// The blobs in `dir` (created when the first blob is written).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_of(&self, hash: &str) -> PathBuf {
        self.dir.join(&hash[..2]).join(&hash[2..])
    }

    /// Stores `bytes` (once: a content already there is not written again). Returns its hash
    /// and how many bytes the store grew by (0 when it was there).
    pub fn put(&self, bytes: &[u8]) -> io::Result<(String, u64)> {
        let hash = hash_hex(bytes);
        let path = self.path_of(&hash);
        if fs::metadata(&path).is_ok_and(|metadata| metadata.len() > 0) {
            // Reused now: a collection running meanwhile must not take it (see `limits`).
            if let Ok(file) = File::options().write(true).open(&path) {
                let _ = file.set_modified(std::time::SystemTime::now());
            }
            return Ok((hash, 0));
        }
        let encoded = encode(bytes)?;
        let Some(shard) = path.parent() else {
            return Err(io::Error::other("a blob path has no folder"));
        };
        create_private_dir(shard)?;
        let mut temp = tempfile::Builder::new()
            .prefix(".blob-")
            .tempfile_in(shard)?;
        temp.write_all(&encoded)?;
        temp.persist(&path).map_err(|error| error.error)?;
        Ok((hash, encoded.len() as u64))
    }

    /// The content named `hash`, checked against its name.
    pub fn get(&self, hash: &str) -> io::Result<Vec<u8>> {
        if !is_hash(hash) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a content hash",
            ));
        }
        let mut encoded = Vec::new();
        File::open(self.path_of(hash))?.read_to_end(&mut encoded)?;
        let bytes = decode(&encoded)?;
        if hash_hex(&bytes) != hash {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the stored content {hash} is damaged"),
            ));
        }
        Ok(bytes)
    }

    /// When the blob `hash` was last written or reused.
    pub fn modified(&self, hash: &str) -> io::Result<std::time::SystemTime> {
        fs::metadata(self.path_of(hash))?.modified()
    }

    /// Every blob: its hash and its size on disk.
    pub fn list(&self) -> io::Result<Vec<(String, u64)>> {
        let mut blobs = Vec::new();
        let shards = match fs::read_dir(&self.dir) {
            Ok(shards) => shards,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(blobs),
            Err(error) => return Err(error),
        };
        for shard in shards {
            let shard = shard?;
            let prefix = shard.file_name().to_string_lossy().into_owned();
            if prefix.len() != 2 || !shard.file_type()?.is_dir() {
                continue;
            }
            for blob in fs::read_dir(shard.path())? {
                let blob = blob?;
                let hash = format!("{prefix}{}", blob.file_name().to_string_lossy());
                if is_hash(&hash) {
                    blobs.push((hash, blob.metadata()?.len()));
                }
            }
        }
        Ok(blobs)
    }

    /// Removes every blob not in `keep`. Returns the bytes the blobs left take.
    pub fn retain(&self, keep: &HashSet<String>) -> io::Result<u64> {
        let mut kept = 0;
        for (hash, size) in self.list()? {
            if keep.contains(&hash) {
                kept += size;
            } else {
                match fs::remove_file(self.path_of(&hash)) {
                    Ok(()) => {}
                    Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                    Err(error) => return Err(error),
                }
            }
        }
        Ok(kept)
    }

    /// Removes the whole folder (the project's checkpoints are forgotten).
    pub fn remove_all(&self) -> io::Result<()> {
        match fs::remove_dir_all(&self.dir) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
        }
    }
}

fn encode(bytes: &[u8]) -> io::Result<Vec<u8>> {
    let mut encoder = DeflateEncoder::new(
        Vec::with_capacity(bytes.len() / 3 + 16),
        Compression::default(),
    );
    encoder.write_all(bytes)?;
    let deflated = encoder.finish()?;
    let mut out = Vec::with_capacity(deflated.len().min(bytes.len()) + 1);
    if deflated.len() < bytes.len() {
        out.push(DEFLATED);
        out.extend_from_slice(&deflated);
    } else {
        out.push(RAW);
        out.extend_from_slice(bytes);
    }
    Ok(out)
}

fn decode(encoded: &[u8]) -> io::Result<Vec<u8>> {
    match encoded.split_first() {
        Some((&RAW, bytes)) => Ok(bytes.to_vec()),
        Some((&DEFLATED, stream)) => {
            let mut bytes = Vec::with_capacity(stream.len() * 3);
            DeflateDecoder::new(stream).read_to_end(&mut bytes)?;
            Ok(bytes)
        }
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a stored content has an unknown format",
        )),
    }
}

/// Creates `dir` and its parents, readable by the user only (contents of their files).
pub(crate) fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_are_stored_once_compressed_and_read_back_checked() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = BlobStore::new(dir.path().join("blobs"));
        let text = "fn main() {}\n".repeat(1000);
        let (hash, grew) = blobs.put(text.as_bytes()).unwrap();
        assert_eq!(hash, hash_hex(text.as_bytes()));
        assert!(grew > 0 && grew < text.len() as u64 / 10, "{grew}");
        assert_eq!(blobs.put(text.as_bytes()).unwrap(), (hash.clone(), 0));
        assert_eq!(blobs.get(&hash).unwrap(), text.as_bytes());

        // Incompressible bytes are kept as they are.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        let (noisy, grew) = blobs.put(&noise).unwrap();
        assert_eq!(grew, noise.len() as u64 + 1);
        assert_eq!(blobs.get(&noisy).unwrap(), noise);
        let (empty, _) = blobs.put(b"").unwrap();
        assert_eq!(blobs.get(&empty).unwrap(), b"");

        // A damaged blob is refused, not returned.
        let path = blobs.path_of(&hash);
        fs::write(&path, b"rnot the content").unwrap();
        assert_eq!(
            blobs.get(&hash).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        assert_eq!(
            blobs.get("../../etc/passwd").unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );

        let listed: HashSet<String> = blobs.list().unwrap().into_iter().map(|(h, _)| h).collect();
        assert_eq!(listed.len(), 3);
        let left = blobs.retain(&HashSet::from([noisy.clone()])).unwrap();
        assert_eq!(left, noise.len() as u64 + 1);
        assert_eq!(blobs.list().unwrap().len(), 1);
        blobs.remove_all().unwrap();
        assert!(blobs.list().unwrap().is_empty());
    }
}
