//! The zip container of DOCX, PPTX, XLSX and ODS, checked before any parser reads it.
//!
//! A zip's headers say what each entry unpacks to, and a hostile file lies. So every entry is
//! unpacked once into nothing, counting the bytes that really come out and stopping at the cap:
//! a zip bomb costs at most `max_unpacked_bytes` of inflating, never that much memory.

use std::cell::RefCell;
use std::io::{Cursor, Read};

use zip::result::ZipError;
use zip::ZipArchive;

use crate::{DocumentError, DocumentKind, Limits};

/// What an Office file protected by a password is: an OLE container, not a zip.
const OLE_MAGIC: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

pub(crate) struct Archive<'a> {
    name: String,
    kind: DocumentKind,
    zip: RefCell<ZipArchive<Cursor<&'a [u8]>>>,
    /// The real unpacked size of the largest entry, so reading one whole is within the cap.
    max_entry_bytes: u64,
}

impl<'a> Archive<'a> {
    /// Opens `bytes` as a zip and checks the number of entries and what they unpack to.
    pub(crate) fn open(
        name: &str,
        kind: DocumentKind,
        bytes: &'a [u8],
        limits: &Limits,
    ) -> Result<Self, DocumentError> {
        if bytes.starts_with(&OLE_MAGIC) {
            return Err(DocumentError::Encrypted {
                name: name.to_owned(),
            });
        }
        let mut zip =
            ZipArchive::new(Cursor::new(bytes)).map_err(|error| invalid(name, kind, &error))?;
        let too_large = || DocumentError::UnpacksTooLarge {
            name: name.to_owned(),
            limit: limits.max_unpacked_bytes,
            entries: limits.max_entries,
        };
        if zip.len() > limits.max_entries {
            return Err(too_large());
        }
        let mut total: u64 = 0;
        let mut largest: u64 = 0;
        for index in 0..zip.len() {
            let mut entry = zip
                .by_index(index)
                .map_err(|error| invalid(name, kind, &error))?;
            if entry.encrypted() {
                return Err(DocumentError::Encrypted {
                    name: name.to_owned(),
                });
            }
            let room = limits.max_unpacked_bytes - total;
            // One byte past the room tells "over the cap" from "exactly at it".
            let unpacked = std::io::copy(&mut (&mut entry).take(room + 1), &mut std::io::sink())
                .map_err(|error| DocumentError::Invalid {
                    name: name.to_owned(),
                    kind: kind.label(),
                    reason: format!("a part of it is damaged ({error})"),
                })?;
            if unpacked > room {
                return Err(too_large());
            }
            total += unpacked;
            largest = largest.max(unpacked);
        }
        Ok(Self {
            name: name.to_owned(),
            kind,
            zip: RefCell::new(zip),
            max_entry_bytes: largest,
        })
    }

    /// The entries' names, in the archive's order.
    pub(crate) fn names(&self) -> Vec<String> {
        self.zip
            .borrow()
            .file_names()
            .filter_map(Result::ok)
            .map(|n| n.into_owned())
            .collect()
    }

    /// The entry `name` unpacked, or `None` when there is none.
    pub(crate) fn read(&self, name: &str) -> Result<Option<Vec<u8>>, DocumentError> {
        let mut zip = self.zip.borrow_mut();
        let mut entry = match zip.by_name(name) {
            Ok(entry) => entry,
            Err(ZipError::FileNotFound) => return Ok(None),
            Err(error) => return Err(invalid(&self.name, self.kind, &error)),
        };
        let mut bytes = Vec::new();
        // Checked in `open`; the cap again in case the entry unpacks differently a second time.
        (&mut entry)
            .take(self.max_entry_bytes + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| DocumentError::Invalid {
                name: self.name.clone(),
                kind: self.kind.label(),
                reason: format!("{name} inside it is damaged ({error})"),
            })?;
        Ok(Some(bytes))
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn kind(&self) -> DocumentKind {
        self.kind
    }
}

fn invalid(name: &str, kind: DocumentKind, error: &ZipError) -> DocumentError {
    DocumentError::Invalid {
        name: name.to_owned(),
        kind: kind.label(),
        reason: format!("it is not a readable zip container ({error})"),
    }
}
