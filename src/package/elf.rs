//! The newest glibc a Linux x86-64 binary asks for, read from its ELF
//! version requirements (the `.gnu.version_r` section, what `objdump -T`
//! shows as `GLIBC_2.34`): a binary runs only where the C library is at
//! least that version, so an autograder must not ship one newer than its
//! image has.

use std::fmt;

/// A glibc version, `2.31` (`GLIBC_2.2.5` has three parts).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct GlibcVersion(pub Vec<u32>);

impl GlibcVersion {
    /// Reads `2.31` (or `GLIBC_2.31`); `None` when it is not a version.
    pub fn parse(text: &str) -> Option<GlibcVersion> {
        let digits = text.strip_prefix("GLIBC_").unwrap_or(text);
        let parts: Option<Vec<u32>> = digits.split('.').map(|part| part.parse().ok()).collect();
        parts.filter(|parts| parts.len() >= 2).map(GlibcVersion)
    }
}

impl fmt::Display for GlibcVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(u32::to_string).collect();
        f.write_str(&parts.join("."))
    }
}

/// ELF's `e_machine` for x86-64.
const X86_64: u16 = 62;
/// The section type of version requirements (`SHT_GNU_verneed`).
const VERSION_NEEDS: u32 = 0x6fff_fffe;

/// The newest glibc version `binary` requires (`None`: it needs none, as a
/// static binary), or why it is not a Linux x86-64 ELF binary.
pub fn newest_glibc(binary: &[u8]) -> Result<Option<GlibcVersion>, ElfError> {
    let elf = Elf::read(binary)?;
    let mut newest: Option<GlibcVersion> = None;
    for section in 0..elf.section_count {
        let header = elf.section(section)?;
        if header.kind == VERSION_NEEDS {
            for name in elf.needed_versions(&header)? {
                if let Some(version) = name.strip_prefix("GLIBC_").and_then(GlibcVersion::parse) {
                    newest = newest.max(Some(version));
                }
            }
        }
    }
    Ok(newest)
}

/// Why a file is not a Linux x86-64 ELF binary whose version needs can be
/// read: the message completes "BINARY cannot run on Gradescope's ...: ".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ElfError {
    /// Not an ELF file.
    #[error("it is not an ELF binary (Gradescope runs Linux x86-64 ones)")]
    NotElf,
    /// An ELF file of 32 bits or big-endian.
    #[error("it is not a 64-bit little-endian ELF binary")]
    Not64BitLittleEndian,
    /// Built for another processor (ELF's `e_machine`).
    #[error("it is built for another processor (ELF machine {0}), not x86-64")]
    Machine(u16),
    /// A section header beyond what an offset can address.
    #[error("a section header lies outside the file")]
    SectionOutside,
    /// A name past the end of its string table.
    #[error("a name lies outside")]
    NameOutsideTable,
    /// A name past the end of the file.
    #[error("a name lies outside the file")]
    NameOutsideFile,
    /// A name without its terminating zero.
    #[error("a name has no end")]
    NameUnended,
    /// An offset plus a field's size overflows.
    #[error("an offset overflows")]
    OffsetOverflow,
    /// A field that ends past the end of the file, at this byte.
    #[error("the file ends before byte {0}")]
    EndsBefore(usize),
    /// An offset this machine cannot address.
    #[error("an offset ({0}) is larger than this machine's")]
    OffsetTooLarge(u64),
}

/// A 64-bit little-endian ELF file, read without trusting any offset in it.
struct Elf<'a> {
    bytes: &'a [u8],
    section_offset: usize,
    section_size: usize,
    section_count: usize,
}

/// The fields of a section header this reader needs.
struct Section {
    kind: u32,
    offset: usize,
    /// The section's size in bytes (a string table's names lie within it).
    size: usize,
    link: usize,
    info: usize,
}

impl<'a> Elf<'a> {
    fn read(bytes: &'a [u8]) -> Result<Elf<'a>, ElfError> {
        if bytes.get(..4) != Some(b"\x7fELF") {
            return Err(ElfError::NotElf);
        }
        if bytes.get(4..6) != Some(&[2, 1]) {
            return Err(ElfError::Not64BitLittleEndian);
        }
        let elf = Elf { bytes, section_offset: 0, section_size: 0, section_count: 0 };
        let machine = elf.u16(0x12)?;
        if machine != X86_64 {
            return Err(ElfError::Machine(machine));
        }
        Ok(Elf {
            section_offset: elf.u64(0x28)?,
            section_size: usize::from(elf.u16(0x3a)?),
            section_count: usize::from(elf.u16(0x3c)?),
            ..elf
        })
    }

    fn section(&self, index: usize) -> Result<Section, ElfError> {
        let at = index.checked_mul(self.section_size).and_then(|o| o.checked_add(self.section_offset));
        let at = at.ok_or(ElfError::SectionOutside)?;
        Ok(Section {
            kind: self.u32(at + 4)?,
            offset: self.u64(at + 24)?,
            size: self.u64(at + 32)?,
            link: self.u32(at + 40)? as usize,
            info: self.u32(at + 44)? as usize,
        })
    }

    /// The version names a `SHT_GNU_verneed` section lists (every
    /// library's), from the string table it links to.
    fn needed_versions(&self, needs: &Section) -> Result<Vec<String>, ElfError> {
        let strings = self.section(needs.link)?;
        let mut names = Vec::new();
        let mut entry = needs.offset;
        for _ in 0..needs.info {
            let count = self.u16(entry + 2)?;
            let mut aux = entry + self.u32(entry + 8)? as usize;
            for _ in 0..count {
                names.push(self.string(&strings, self.u32(aux + 8)? as usize)?);
                aux += self.u32(aux + 12)? as usize;
            }
            let next = self.u32(entry + 12)? as usize;
            if next == 0 {
                break;
            }
            entry += next;
        }
        Ok(names)
    }

    fn string(&self, table: &Section, offset: usize) -> Result<String, ElfError> {
        let start =
            table.offset.checked_add(offset).filter(|_| offset < table.size).ok_or(ElfError::NameOutsideTable)?;
        let rest = self.bytes.get(start..).ok_or(ElfError::NameOutsideFile)?;
        let end = rest.iter().position(|&byte| byte == 0).ok_or(ElfError::NameUnended)?;
        Ok(String::from_utf8_lossy(&rest[..end]).into_owned())
    }

    fn field<const N: usize>(&self, at: usize) -> Result<[u8; N], ElfError> {
        let end = at.checked_add(N).ok_or(ElfError::OffsetOverflow)?;
        let bytes = self.bytes.get(at..end).ok_or(ElfError::EndsBefore(end))?;
        Ok(bytes.try_into().expect("the slice has N bytes"))
    }

    fn u16(&self, at: usize) -> Result<u16, ElfError> {
        self.field(at).map(u16::from_le_bytes)
    }

    fn u32(&self, at: usize) -> Result<u32, ElfError> {
        self.field(at).map(u32::from_le_bytes)
    }

    fn u64(&self, at: usize) -> Result<usize, ElfError> {
        let value = self.field(at).map(u64::from_le_bytes)?;
        usize::try_from(value).map_err(|_| ElfError::OffsetTooLarge(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_and_order_as_numbers() {
        let v = |text| GlibcVersion::parse(text).unwrap();
        assert!(v("2.31") < v("2.34") && v("GLIBC_2.2.5") < v("2.3") && v("2.9") < v("2.10"));
        assert_eq!(v("GLIBC_2.2.5").to_string(), "2.2.5");
        assert_eq!(GlibcVersion::parse("GLIBC_PRIVATE"), None);
        assert_eq!(GlibcVersion::parse("2"), None);
    }

    #[test]
    fn what_is_not_a_linux_x86_64_binary_is_named() {
        let script = newest_glibc(b"#!/bin/sh\n").unwrap_err();
        assert_eq!(script.to_string(), "it is not an ELF binary (Gradescope runs Linux x86-64 ones)");
        let mut arm = vec![0x7f, b'E', b'L', b'F', 2, 1];
        arm.resize(0x40, 0);
        arm[0x12] = 183; // aarch64
        let arm_error = newest_glibc(&arm).unwrap_err();
        assert_eq!(arm_error.to_string(), "it is built for another processor (ELF machine 183), not x86-64");
        // Cut short, or with offsets past its end: an error, never a panic.
        let mut cut = arm.clone();
        cut[0x12] = 62;
        cut[0x28] = 0xff;
        cut[0x3c] = 3;
        cut[0x3a] = 64;
        assert!(newest_glibc(&cut).is_err());
        assert_eq!(newest_glibc(&cut[..0x20]).unwrap_err().to_string(), "the file ends before byte 48");
    }

    /// The reader agrees with binutils on the test binary itself (linked
    /// against this machine's glibc).
    #[cfg(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu"))]
    #[test]
    fn the_newest_glibc_is_the_one_objdump_shows() {
        let binary = std::env::current_exe().unwrap();
        let ours = newest_glibc(&std::fs::read(&binary).unwrap()).unwrap().expect("a glibc binary needs glibc");
        let Ok(output) = std::process::Command::new("objdump").arg("-T").arg(&binary).output() else {
            assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI needs objdump (binutils)");
            eprintln!("objdump is missing: the reader is not compared with it");
            return;
        };
        let listing = String::from_utf8_lossy(&output.stdout);
        let newest = listing
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
            .filter_map(|word| word.strip_prefix("GLIBC_").and_then(GlibcVersion::parse))
            .max()
            .expect("objdump lists glibc versions");
        assert_eq!(ours, newest);
    }
}
