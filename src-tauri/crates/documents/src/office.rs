//! Word documents and presentations: their XML read for text with `quick-xml`.
//!
//! DOCX: `word/document.xml` — paragraphs (`w:p`) become lines, a table row (`w:tr`) one line of
//! its cells (`w:tc`) joined by tabs; a page break the file records (`w:br w:type="page"`,
//! or the `w:lastRenderedPageBreak` Word and LibreOffice write when they save) starts the next
//! page marker. Deleted text of tracked changes (`w:delText`) and field codes are left out.
//!
//! PPTX: `ppt/slides/slideN.xml` in the order of N — each slide's paragraphs (`a:p`) as lines —
//! and its notes (`ppt/notesSlides/notesSlideN.xml`) under "Notes:" when there are any.

use quick_xml::escape::resolve_xml_entity;
use quick_xml::events::Event;
use quick_xml::Reader;

use crate::text::Writer;
use crate::zipped::Archive;
use crate::{DocumentError, DocumentKind};

pub(crate) fn read(
    archive: &Archive<'_>,
    kind: DocumentKind,
    out: &mut Writer,
) -> Result<(), DocumentError> {
    match kind {
        DocumentKind::Pptx => read_slides(archive, out),
        _ => read_docx(archive, out),
    }
}

fn read_docx(archive: &Archive<'_>, out: &mut Writer) -> Result<(), DocumentError> {
    let xml = archive
        .read("word/document.xml")?
        .ok_or_else(|| missing(archive, "word/document.xml"))?;
    out.part(None);
    let mut in_text = false;
    // A table row is gathered cell by cell and written as one tab-separated line.
    let mut row: Option<Vec<String>> = None;
    let write = |out: &mut Writer, row: &mut Option<Vec<String>>, text: &str| match row {
        Some(cells) => match cells.last_mut() {
            Some(cell) => cell.push_str(text),
            None => cells.push(text.to_owned()),
        },
        None => out.push(text),
    };
    walk(archive, &xml, |event| match event {
        Xml::Open(name, element) => match name {
            "t" => in_text = true,
            "tab" => write(out, &mut row, "\t"),
            "br" | "cr" => {
                if attribute(element, "type").as_deref() == Some("page") {
                    out.part(None);
                } else {
                    write(out, &mut row, "\n");
                }
            }
            "lastRenderedPageBreak" => out.part(None),
            "tr" => row = Some(Vec::new()),
            "tc" => {
                if let Some(cells) = row.as_mut() {
                    cells.push(String::new());
                }
            }
            _ => {}
        },
        Xml::Close(name) => match name {
            "t" => in_text = false,
            "p" => match row.as_mut().and_then(|cells| cells.last_mut()) {
                Some(cell) if !cell.is_empty() => cell.push(' '),
                Some(_) => {}
                None => out.push("\n"),
            },
            "tr" => {
                if let Some(cells) = row.take() {
                    let cells: Vec<String> = cells
                        .iter()
                        .map(|cell| cell.replace(['\t', '\n'], " ").trim().to_owned())
                        .collect();
                    out.push(&cells.join("\t"));
                    out.push("\n");
                }
            }
            _ => {}
        },
        Xml::Text(text) if in_text => write(out, &mut row, text),
        Xml::Text(_) => {}
    })
}

fn read_slides(archive: &Archive<'_>, out: &mut Writer) -> Result<(), DocumentError> {
    let mut slides: Vec<(u32, String)> = archive
        .names()
        .into_iter()
        .filter_map(|name| {
            let number = name
                .strip_prefix("ppt/slides/slide")?
                .strip_suffix(".xml")?
                .parse()
                .ok()?;
            Some((number, name))
        })
        .collect();
    // By number: `slide10.xml` comes after `slide9.xml`, not after `slide1.xml`.
    slides.sort_by_key(|(number, _)| *number);
    for (number, name) in slides {
        if out.full() {
            out.part(None);
            continue;
        }
        out.part(None);
        let xml = archive
            .read(&name)?
            .ok_or_else(|| missing(archive, &name))?;
        paragraphs(archive, &xml, out)?;
        let notes = format!("ppt/notesSlides/notesSlide{number}.xml");
        if let Some(xml) = archive.read(&notes)? {
            let mut note = Writer::new("", DocumentKind::Pptx, usize::MAX);
            paragraphs(archive, &xml, &mut note)?;
            let text = note.finish().text;
            // The notes' own heading line is dropped; a slide number placeholder alone is no note.
            let body: Vec<&str> = text
                .lines()
                .skip(1)
                .filter(|l| !l.trim().is_empty())
                .collect();
            if body.iter().any(|line| line.trim().parse::<u32>().is_err()) {
                out.push("Notes:\n");
                for line in body {
                    out.push(line);
                    out.push("\n");
                }
            }
        }
    }
    Ok(())
}

/// A DrawingML text body's paragraphs (`a:p`, text in `a:t`) as lines.
fn paragraphs(archive: &Archive<'_>, xml: &[u8], out: &mut Writer) -> Result<(), DocumentError> {
    let mut in_text = false;
    walk(archive, xml, |event| match event {
        Xml::Open("t", _) => in_text = true,
        Xml::Open("br", _) => out.push("\n"),
        Xml::Close("t") => in_text = false,
        Xml::Close("p") => out.push("\n"),
        Xml::Text(text) if in_text => out.push(text),
        _ => {}
    })
}

enum Xml<'a> {
    /// An element opens (or is empty): its local name and the element for its attributes.
    Open(&'a str, &'a quick_xml::events::BytesStart<'a>),
    Close(&'a str),
    /// Text, with entity and character references resolved.
    Text(&'a str),
}

/// Calls `each` for every element and text of `xml`, by local name (namespaces do not matter
/// here: `w:t` and `a:t` are told apart by the part being read).
fn walk(
    archive: &Archive<'_>,
    xml: &[u8],
    mut each: impl FnMut(Xml<'_>),
) -> Result<(), DocumentError> {
    let text = String::from_utf8_lossy(xml);
    let mut reader = Reader::from_str(&text);
    loop {
        let event = reader
            .read_event()
            .map_err(|error| DocumentError::Invalid {
                name: archive.name().to_owned(),
                kind: archive.kind().label(),
                reason: format!("its XML is damaged ({error})"),
            })?;
        match &event {
            Event::Start(element) => each(Xml::Open(element.local_name().into_inner(), element)),
            Event::Empty(element) => {
                let name = element.local_name().into_inner();
                each(Xml::Open(name, element));
                each(Xml::Close(name));
            }
            Event::End(element) => each(Xml::Close(element.local_name().into_inner())),
            Event::Text(text) => each(Xml::Text(&text.xml10_content())),
            Event::CData(data) => each(Xml::Text(&data.xml10_content())),
            Event::GeneralRef(reference) => {
                let resolved = if reference.is_char_ref() {
                    reference
                        .resolve_char_ref()
                        .ok()
                        .flatten()
                        .map(String::from)
                } else {
                    resolve_xml_entity(&reference.xml10_content()).map(str::to_owned)
                };
                if let Some(resolved) = resolved {
                    each(Xml::Text(&resolved));
                }
            }
            Event::Eof => return Ok(()),
            _ => {}
        }
    }
}

fn attribute(element: &quick_xml::events::BytesStart<'_>, local: &str) -> Option<String> {
    element
        .attributes()
        .filter_map(Result::ok)
        .find(|a| a.key.local_name().into_inner() == local)
        .map(|a| a.value.into_owned())
}

fn missing(archive: &Archive<'_>, part: &str) -> DocumentError {
    DocumentError::Invalid {
        name: archive.name().to_owned(),
        kind: archive.kind().label(),
        reason: format!("it has no {part}"),
    }
}
