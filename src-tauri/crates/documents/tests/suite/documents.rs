//! Real documents made by LibreOffice and Ghostscript (see `tests/fixtures/SOURCES.md`), and
//! hostile ones made here.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use arbor_documents::{extract, kind_of, DocumentError, DocumentKind, DocumentText, Limits};

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn read(name: &str) -> DocumentText {
    let bytes = fixture(name);
    let kind = kind_of(name, &bytes).unwrap_or_else(|| panic!("{name} is not seen as a document"));
    extract(name, kind, bytes, &Limits::default()).unwrap()
}

/// The text between a part's marker and the next one.
fn part<'a>(text: &'a str, marker: &str) -> &'a str {
    let start = text
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker} in:\n{text}"))
        + marker.len();
    let rest = &text[start..];
    &rest[..rest.find("\n--- ").unwrap_or(rest.len())]
}

#[test]
fn a_pdf_from_libreoffice_is_read_page_by_page() {
    let document = read("spec.pdf");
    let text = &document.text;
    assert!(text.starts_with("[spec.pdf: PDF, 2 pages]\n"), "{text}");
    let first = part(text, "--- page 1 ---");
    assert!(first.contains("Arbor export spec"), "{first}");
    assert!(first.contains("session & its labels"), "{first}");
    assert!(first.contains("naïve café"), "{first}");
    assert!(part(text, "--- page 2 ---").contains("Second page: the import checks"));
}

#[test]
fn a_pdf_from_ghostscript_marks_a_page_without_text() {
    let document = read("notes-gs.pdf");
    assert_eq!(document.parts, 3);
    assert!(part(&document.text, "--- page 1 ---").contains("the cache must be warm"));
    assert!(part(&document.text, "--- page 2 ---").contains("finder results under 50 ms"));
    assert!(part(&document.text, "--- page 3 ---").contains("no text on this page"));
}

#[test]
fn a_word_document_keeps_its_paragraphs_table_and_page_break() {
    let document = read("spec.docx");
    let text = &document.text;
    assert!(
        text.starts_with("[spec.docx: Word document, 2 pages]"),
        "{text}"
    );
    let first = part(text, "--- page 1 ---");
    assert!(first.contains("Arbor export spec\n"), "{first}");
    assert!(first.contains("session & its labels"), "{first}");
    assert!(first.contains("naïve café — 日本語."), "{first}");
    // Table cells joined by tabs, a row per line.
    assert!(first.contains("Markdown\tmd"), "{first}");
    assert!(!first.contains("Second page"), "{first}");
    assert!(part(text, "--- page 2 ---").contains("Second page: the import checks"));
}

#[test]
fn a_presentation_is_read_slide_by_slide_in_order_with_its_notes() {
    let document = read("deck.pptx");
    let text = &document.text;
    assert_eq!(document.parts, 11, "{text}");
    assert!(part(text, "--- slide 1 ---").contains("Slide 1 title\nPoint for slide 1"));
    let second = part(text, "--- slide 2 ---");
    assert!(
        second.contains("Notes:\nSpeaker note on slide two"),
        "{second}"
    );
    assert!(part(text, "--- slide 10 ---").contains("Slide 10 title"));
    let nine = text.find("Slide 9 title").unwrap();
    let ten = text.find("Slide 10 title").unwrap();
    assert!(nine < ten, "slide 10 after slide 9:\n{text}");
    assert!(!part(text, "--- slide 3 ---").contains("Notes:"));
}

#[test]
fn spreadsheets_in_both_formats_list_every_sheet_as_rows() {
    for name in ["budget.xlsx", "budget.ods"] {
        let document = read(name);
        let text = &document.text;
        assert_eq!(document.parts, 2, "{name}: {text}");
        let q1 = part(text, "--- sheet \"Q1\" ---");
        assert!(
            q1.contains("Item\tCost\nServers\t1250.5\nLicences\t300"),
            "{name}: {q1}"
        );
        let notes = part(text, "--- sheet \"Notes & risks\" ---");
        assert!(
            notes.contains("Risk: the migration slips to Q2"),
            "{name}: {notes}"
        );
    }
}

#[test]
fn a_password_protected_pdf_says_so() {
    let bytes = fixture("locked.pdf");
    let error = extract("locked.pdf", DocumentKind::Pdf, bytes, &Limits::default()).unwrap_err();
    assert_eq!(error.code(), "invalid_document", "{error}");
    // Whether the reader calls it encrypted or damaged, the user is told what to do.
    assert!(error.to_string().contains("locked.pdf"), "{error}");
}

#[test]
fn damaged_documents_fail_cleanly() {
    for name in [
        "spec.pdf",
        "spec.docx",
        "budget.xlsx",
        "deck.pptx",
        "budget.ods",
    ] {
        let bytes = fixture(name);
        let kind = kind_of(name, &bytes).unwrap();
        for cut in [bytes.len() / 2, 64] {
            let started = Instant::now();
            let outcome = extract(name, kind, bytes[..cut].to_vec(), &Limits::default());
            assert!(started.elapsed() < Duration::from_secs(30));
            match outcome {
                Err(error) => {
                    assert_eq!(
                        error.code(),
                        "invalid_document",
                        "{name} cut at {cut}: {error}"
                    );
                    assert!(error.to_string().contains(name), "{error}");
                }
                // A PDF cut after its pages may still have readable text: never a panic.
                Ok(document) => assert!(kind == DocumentKind::Pdf, "{name}: {document:?}"),
            }
        }
    }
    let garbage = b"%PDF-1.7\n1 0 obj << /Type /Pages /Kids [1 0 R] /Count 1 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF".to_vec();
    let error = extract("loop.pdf", DocumentKind::Pdf, garbage, &Limits::default());
    assert!(error.is_err(), "{error:?}");
}

/// A zip whose one entry inflates from about a megabyte to `unpacked` bytes of zeros.
fn zip_bomb(entry: &str, unpacked: usize) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    out.start_file(entry, options).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..unpacked / zeros.len() {
        out.write_all(&zeros).unwrap();
    }
    out.finish().unwrap().into_inner()
}

#[test]
fn a_zip_bomb_is_refused_before_any_parser_inflates_it() {
    let limits = Limits {
        max_unpacked_bytes: 16 * 1024 * 1024,
        ..Limits::default()
    };
    for (name, entry) in [
        ("bomb.docx", "word/document.xml"),
        ("bomb.xlsx", "xl/worksheets/sheet1.xml"),
        ("bomb.pptx", "ppt/slides/slide1.xml"),
    ] {
        let bytes = zip_bomb(entry, 32 * 1024 * 1024);
        assert!(
            bytes.len() < 1024 * 1024,
            "the bomb is small: {}",
            bytes.len()
        );
        let kind = kind_of(name, &bytes).unwrap();
        let error = extract(name, kind, bytes, &limits).unwrap_err();
        assert!(
            matches!(error, DocumentError::UnpacksTooLarge { .. }),
            "{name}: {error}"
        );
        assert_eq!(error.code(), "document_too_large");
        assert!(error.to_string().contains("zip bomb"), "{error}");
    }
}

#[test]
fn a_word_document_with_entity_tricks_is_read_without_expanding_them() {
    // "Billion laughs": nested entities that expand to gigabytes in a parser that expands
    // them. Only XML's five predefined entities are resolved; the rest stays unexpanded.
    let mut entities = String::from("<!ENTITY lol \"lol\">");
    for level in 1..10 {
        let previous = if level == 1 {
            "lol".to_owned()
        } else {
            format!("lol{}", level - 1)
        };
        entities.push_str(&format!(
            "<!ENTITY lol{level} \"{}\">",
            format!("&{previous};").repeat(10)
        ));
    }
    let xml = format!(
        "<?xml version=\"1.0\"?><!DOCTYPE w:document [{entities}]>\
         <w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\">\
         <w:body><w:p><w:r><w:t>before &lol9; after &amp; done</w:t></w:r></w:p></w:body>\
         </w:document>"
    );
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    out.start_file("word/document.xml", options).unwrap();
    out.write_all(xml.as_bytes()).unwrap();
    let bytes = out.finish().unwrap().into_inner();
    let started = Instant::now();
    let document = extract("laughs.docx", DocumentKind::Docx, bytes, &Limits::default()).unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        document.text.contains("before  after & done"),
        "{}",
        document.text
    );
    assert!(
        document.text.len() < 1_000,
        "an entity was expanded: {}",
        document.text.len()
    );
}

#[test]
fn caps_on_the_file_and_the_text_say_what_was_left_out() {
    let bytes = fixture("spec.pdf");
    let small = Limits {
        max_file_bytes: 1000,
        ..Limits::default()
    };
    let error = extract("spec.pdf", DocumentKind::Pdf, bytes.clone(), &small).unwrap_err();
    assert_eq!(error.code(), "document_too_large");
    assert!(error.to_string().contains("1000 bytes"), "{error}");

    let short = Limits {
        max_text_chars: 40,
        ..Limits::default()
    };
    let document = extract("spec.pdf", DocumentKind::Pdf, bytes, &short).unwrap();
    assert!(document.omitted_chars > 0);
    assert!(
        document.text.contains("more characters not shown"),
        "{}",
        document.text
    );
    // Every page is still counted, so the model knows how much there is.
    assert_eq!(document.parts, 2);
}
