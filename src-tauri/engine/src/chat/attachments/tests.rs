use std::fs;
use std::os::unix::fs::symlink;

use super::*;

struct Project {
    _dir: tempfile::TempDir,
    root: ProjectRoot,
    tree: ProjectTree,
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    fs::create_dir_all(base.join("src/nested")).unwrap();
    fs::write(
        base.join("src/main.rs"),
        "fn main() {\n    println!(\"hi\");\n}\n",
    )
    .unwrap();
    fs::write(base.join("src/lib.rs"), "pub fn lib() {}\n").unwrap();
    let long: String = (1..=1500).map(|n| format!("line {n}\n")).collect();
    fs::write(base.join("long.txt"), long).unwrap();
    fs::write(base.join("blob.bin"), b"\0\x01\x02binary").unwrap();
    fs::write(base.join(".gitignore"), "secret.log\n").unwrap();
    fs::write(base.join("src/secret.log"), "hidden").unwrap();
    let root = ProjectRoot::new(base).unwrap();
    let tree = ProjectTree::new(base).unwrap();
    Project {
        _dir: dir,
        root,
        tree,
    }
}

#[test]
fn a_file_is_attached_as_read_file_shows_it() {
    let p = project();
    let Attachment::File { path, text } =
        mention_attachment(&p.root, &p.tree, "src/main.rs").unwrap()
    else {
        panic!("not a file")
    };
    assert_eq!(path, "src/main.rs");
    assert_eq!(
        text,
        "[file: src/main.rs | lines 1-3/3]\n1: fn main() {\n2:     println!(\"hi\");\n3: }"
    );
}

#[test]
fn a_long_file_is_windowed_and_the_header_says_so() {
    let p = project();
    let Attachment::File { text, .. } = mention_attachment(&p.root, &p.tree, "long.txt").unwrap()
    else {
        panic!("not a file")
    };
    assert!(text.starts_with(&format!("[file: long.txt | lines 1-{MENTION_LINES}/1500]")));
    assert!(text.contains(&format!("\n{MENTION_LINES}: line {MENTION_LINES}")));
    assert!(!text.contains(&format!("line {}", MENTION_LINES + 1)));
}

#[test]
fn a_folder_is_attached_as_its_listing_with_the_trees_rules() {
    let p = project();
    let Attachment::Folder { path, text } = mention_attachment(&p.root, &p.tree, "src").unwrap()
    else {
        panic!("not a folder")
    };
    assert_eq!(path, "src");
    assert_eq!(
        text,
        "[folder: src | 3 entries]\nnested/\nlib.rs (16 bytes)\nmain.rs (34 bytes)"
    );
    assert!(!text.contains("secret.log"), "ignored files stay out");
    let Attachment::Folder { path, .. } = mention_attachment(&p.root, &p.tree, ".").unwrap() else {
        panic!("not a folder")
    };
    assert_eq!(path, ".");
}

#[test]
fn paths_outside_the_project_are_refused() {
    let p = project();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("passwd"), "root:x:0:0").unwrap();
    symlink(outside.path().join("passwd"), p.root.path().join("link")).unwrap();
    symlink(outside.path(), p.root.path().join("away")).unwrap();
    let refused = |path: &str, kind: ErrorKind| {
        let error = mention_attachment(&p.root, &p.tree, path).unwrap_err();
        assert_eq!(error.kind, kind, "{path}: {}", error.message);
        error.message
    };
    let outside_kind = ErrorKind::OutsideProject;
    assert!(refused("../etc/passwd", outside_kind).contains("outside the project"));
    assert!(refused("link", outside_kind).contains("outside the project"));
    assert!(refused("away/passwd", outside_kind).contains("outside the project"));
    let absolute = outside.path().join("passwd");
    assert!(refused(absolute.to_str().unwrap(), outside_kind).contains("outside the project"));
    assert!(refused("missing.rs", ErrorKind::NotFound).contains("does not exist"));
    assert!(refused("blob.bin", ErrorKind::InvalidInput).contains("binary"));
}

#[test]
fn an_absolute_path_inside_the_project_becomes_relative() {
    let p = project();
    let absolute = p.root.path().join("src/lib.rs");
    let target = mention_target(&p.root, absolute.to_str().unwrap()).unwrap();
    assert_eq!(
        target,
        MentionTarget {
            path: "src/lib.rs".into(),
            is_dir: false
        }
    );
    assert!(mention_target(&p.root, "src/nested").unwrap().is_dir);
}

fn png(width: u32, height: u32) -> Vec<u8> {
    let image = DynamicImage::ImageRgb8(image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x * y) % 256) as u8])
    }));
    encode(&image, ImageFormat::Png).unwrap()
}

#[test]
fn a_small_image_is_kept_as_it_came() {
    let bytes = png(4, 3);
    let image = image_from_base64("shot.png", &BASE64.encode(&bytes)).unwrap();
    assert_eq!(
        image,
        Attachment::Image {
            name: "shot.png".into(),
            mime: "image/png".into(),
            data: BASE64.encode(&bytes),
            width: 4,
            height: 3,
        }
    );
    check_prepared(&image).unwrap();
}

#[test]
fn a_large_image_is_downscaled_to_the_longest_side() {
    let bytes = png(3000, 1000);
    let Attachment::Image {
        width,
        height,
        data,
        mime,
        ..
    } = image_from_bytes("", &bytes).unwrap()
    else {
        panic!("not an image")
    };
    assert_eq!((width, height), (MAX_IMAGE_SIDE, 683));
    assert_eq!(mime, "image/png");
    let decoded = image::load_from_memory(&BASE64.decode(data).unwrap()).unwrap();
    assert_eq!(decoded.width(), MAX_IMAGE_SIDE);
}

#[test]
fn other_types_and_broken_data_are_refused_with_a_reason() {
    assert_eq!(image_from_base64("a", "###"), Err(ImageError::Encoding));
    assert_eq!(image_from_bytes("a", b""), Err(ImageError::Empty));
    assert_eq!(
        image_from_bytes("a.txt", b"just some text, not an image"),
        Err(ImageError::Format)
    );
    // A BMP is an image, but not one of the four.
    let mut bmp = Cursor::new(Vec::new());
    DynamicImage::new_rgb8(2, 2)
        .write_to(&mut bmp, ImageFormat::Bmp)
        .ok();
    if !bmp.get_ref().is_empty() {
        assert_eq!(
            image_from_bytes("a.bmp", bmp.get_ref()),
            Err(ImageError::Format)
        );
    }
    // A PNG signature on garbage.
    let mut broken = png(2, 2);
    broken.truncate(20);
    assert!(matches!(
        image_from_bytes("a.png", &broken),
        Err(ImageError::Decode(_))
    ));
    let huge = vec![0u8; MAX_IMAGE_INPUT_BYTES + 1];
    assert_eq!(
        image_from_bytes("big", &huge),
        Err(ImageError::TooLarge(20))
    );
    // A prepared image whose type does not match its bytes.
    let forged = Attachment::Image {
        name: "x".into(),
        mime: "image/jpeg".into(),
        data: BASE64.encode(png(2, 2)),
        width: 2,
        height: 2,
    };
    assert_eq!(check_prepared(&forged), Err(ImageError::Format));
}
