//! Audio blocks: what their header tells (format, duration, rate, channels) and the player
//! that plays them. The header parsing is pure and bounded: untrusted bytes in, facts or
//! nothing out, never a panic.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// What an audio file's header tells.
#[derive(Debug, Clone, PartialEq)]
pub struct AudioInfo {
    /// The container and codec, e.g. `WAV PCM 16-bit`, `MP3`, `Ogg Vorbis`.
    pub format: String,
    /// How long it plays, when the header (or the stream's end) tells.
    pub duration: Option<Duration>,
    /// Samples per second.
    pub sample_rate: Option<u32>,
    /// Channels (1 mono, 2 stereo).
    pub channels: Option<u16>,
    /// Bits per second, for compressed formats with a constant (or first frame's) rate.
    pub bitrate: Option<u32>,
}

impl AudioInfo {
    /// One line: `WAV PCM 16-bit · 44.1 kHz stereo · 2.5 s`.
    pub fn summary(&self) -> String {
        let mut parts = vec![self.format.clone()];
        let mut sound = Vec::new();
        if let Some(rate) = self.sample_rate {
            sound.push(khz(rate));
        }
        match self.channels {
            Some(1) => sound.push("mono".to_string()),
            Some(2) => sound.push("stereo".to_string()),
            Some(n) => sound.push(format!("{n} channels")),
            None => {}
        }
        if let Some(bitrate) = self.bitrate {
            sound.push(format!("{} kbit/s", bitrate / 1000));
        }
        if !sound.is_empty() {
            parts.push(sound.join(" "));
        }
        if let Some(duration) = self.duration {
            parts.push(clock(duration));
        }
        parts.join(" · ")
    }
}

/// `44.1 kHz`, `48 kHz`.
fn khz(rate: u32) -> String {
    if rate.is_multiple_of(1000) {
        format!("{} kHz", rate / 1000)
    } else {
        format!("{:.1} kHz", f64::from(rate) / 1000.0)
    }
}

/// `2.5 s`, `3:07`, `1:02:03`.
fn clock(duration: Duration) -> String {
    let secs = duration.as_secs();
    if secs < 60 {
        let tenths = duration.as_millis() / 100;
        format!("{}.{} s", tenths / 10, tenths % 10)
    } else if secs < 3600 {
        format!("{}:{:02}", secs / 60, secs % 60)
    } else {
        format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
    }
}

/// What the header of `bytes` tells, by its content (the MIME type is only a hint: servers
/// mislabel). `None` for a format it does not know or a header cut short.
pub fn probe(bytes: &[u8]) -> Option<AudioInfo> {
    if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WAVE") {
        return wav(bytes);
    }
    if bytes.starts_with(b"OggS") {
        return ogg(bytes);
    }
    if bytes.starts_with(b"fLaC") {
        return flac(bytes);
    }
    mp3(bytes)
}

fn u16_le(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_le(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u32_be(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_le(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// RIFF/WAVE: the `fmt ` chunk, and the `data` chunk's size over the byte rate.
fn wav(bytes: &[u8]) -> Option<AudioInfo> {
    let mut at = 12usize;
    let mut fmt: Option<(u16, u16, u32, u32, u16)> = None;
    let mut data_len: Option<u64> = None;
    // Chunks are few; the walk stops at the end of the bytes or after a bounded number.
    for _ in 0..64 {
        let (Some(id), Some(size)) = (bytes.get(at..at + 4), u32_le(bytes, at + 4)) else {
            break;
        };
        let body = at + 8;
        match id {
            b"fmt " => {
                fmt = Some((
                    u16_le(bytes, body)?,
                    u16_le(bytes, body + 2)?,
                    u32_le(bytes, body + 4)?,
                    u32_le(bytes, body + 8)?,
                    u16_le(bytes, body + 14)?,
                ));
            }
            b"data" => {
                // A streamed WAV says 0 or 0xFFFFFFFF: count what is there.
                let there = bytes.len().saturating_sub(body) as u64;
                data_len = Some(if size == 0 || size == u32::MAX {
                    there
                } else {
                    u64::from(size).min(there)
                });
                break;
            }
            _ => {}
        }
        // Chunks are padded to an even size.
        at = body
            .checked_add(size as usize)?
            .checked_add(size as usize & 1)?;
    }
    let (code, channels, rate, byte_rate, bits) = fmt?;
    let codec = match code {
        1 => format!("WAV PCM {bits}-bit"),
        3 => format!("WAV float {bits}-bit"),
        6 => "WAV A-law".to_string(),
        7 => "WAV µ-law".to_string(),
        0xFFFE => format!("WAV {bits}-bit"),
        other => format!("WAV (codec {other})"),
    };
    let duration = match (data_len, byte_rate) {
        (Some(len), rate) if rate > 0 => Some(Duration::from_secs_f64(len as f64 / rate as f64)),
        _ => None,
    };
    Some(AudioInfo {
        format: codec,
        duration,
        sample_rate: (rate > 0).then_some(rate),
        channels: (channels > 0).then_some(channels),
        bitrate: None,
    })
}

/// Ogg: the first packet names the codec (Vorbis, Opus, FLAC); the last page's granule
/// position gives the length.
fn ogg(bytes: &[u8]) -> Option<AudioInfo> {
    let segments = usize::from(*bytes.get(26)?);
    let packet = 27 + segments;
    let first = bytes.get(packet..)?;
    let (format, rate, channels, pre_skip, granule_rate) = if first.starts_with(b"\x01vorbis") {
        let channels = u16::from(*first.get(11)?);
        let rate = u32_le(first, 12)?;
        ("Ogg Vorbis", rate, channels, 0u64, rate)
    } else if first.starts_with(b"OpusHead") {
        let channels = u16::from(*first.get(9)?);
        let pre_skip = u64::from(u16_le(first, 10)?);
        let rate = u32_le(first, 12)?;
        // Opus granule positions always count 48 kHz samples.
        ("Ogg Opus", rate, channels, pre_skip, 48_000)
    } else if first.starts_with(b"\x7fFLAC") {
        let info = flac(first.get(9..)?)?;
        let rate = info.sample_rate?;
        ("Ogg FLAC", rate, info.channels.unwrap_or(0), 0, rate)
    } else {
        return Some(AudioInfo {
            format: "Ogg".to_string(),
            duration: None,
            sample_rate: None,
            channels: None,
            bitrate: None,
        });
    };
    // The last page starts at the last "OggS" within the last 64 KiB (pages are smaller).
    let tail_from = bytes.len().saturating_sub(64 * 1024);
    let tail = &bytes[tail_from..];
    let last = memchr::memmem::rfind(tail, b"OggS").map(|at| tail_from + at);
    let duration = last
        .and_then(|at| u64_le(bytes, at + 6))
        .filter(|&g| g != u64::MAX && granule_rate > 0)
        .map(|g| Duration::from_secs_f64(g.saturating_sub(pre_skip) as f64 / granule_rate as f64));
    Some(AudioInfo {
        format: format.to_string(),
        duration,
        sample_rate: (rate > 0).then_some(rate),
        channels: (channels > 0).then_some(channels),
        bitrate: None,
    })
}

/// FLAC: the STREAMINFO block (rate, channels, bits, total samples).
fn flac(bytes: &[u8]) -> Option<AudioInfo> {
    // "fLaC", then a block header (4 bytes) whose type 0 is STREAMINFO.
    let info = bytes.get(4..)?;
    if info.first()? & 0x7f != 0 {
        return None;
    }
    let s = info.get(4..4 + 34)?;
    let rate = (u32::from(s[10]) << 12) | (u32::from(s[11]) << 4) | (u32::from(s[12]) >> 4);
    let channels = u16::from((s[12] >> 1) & 0x7) + 1;
    let bits = (((s[12] & 1) << 4) | (s[13] >> 4)) + 1;
    let total = (u64::from(s[13] & 0x0f) << 32) | u64::from(u32_be(s, 14)?);
    Some(AudioInfo {
        format: format!("FLAC {bits}-bit"),
        duration: (rate > 0 && total > 0)
            .then(|| Duration::from_secs_f64(total as f64 / f64::from(rate))),
        sample_rate: (rate > 0).then_some(rate),
        channels: Some(channels),
        bitrate: None,
    })
}

/// One MPEG audio frame header's facts.
struct Frame {
    /// Its length in bytes, header included.
    length: usize,
    version: u8,
    layer: u8,
    bitrate: u32,
    rate: u32,
    channels: u16,
    samples: u32,
}

/// The MPEG audio frame header at `b[0..4]`, when it is one.
fn frame(b: &[u8]) -> Option<Frame> {
    let h = u32_be(b, 0)?;
    if h >> 21 != 0x7ff {
        return None;
    }
    // 0: MPEG 2.5, 2: MPEG 2, 3: MPEG 1 (1 is reserved).
    let version = ((h >> 19) & 3) as u8;
    let layer = match (h >> 17) & 3 {
        1 => 3,
        2 => 2,
        3 => 1,
        _ => return None,
    };
    let bitrate_index = ((h >> 12) & 0xf) as usize;
    let rate_index = ((h >> 10) & 3) as usize;
    if version == 1 || bitrate_index == 0 || bitrate_index == 15 || rate_index == 3 {
        return None;
    }
    const V1: [[u32; 16]; 3] = [
        [
            0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 0,
        ],
        [
            0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 0,
        ],
        [
            0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0,
        ],
    ];
    const V2: [[u32; 16]; 2] = [
        [
            0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256, 0,
        ],
        [
            0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0,
        ],
    ];
    let kbps = if version == 3 {
        V1[usize::from(layer - 1)][bitrate_index]
    } else {
        V2[usize::from(layer != 1)][bitrate_index]
    };
    let base = [44_100, 48_000, 32_000][rate_index];
    let rate = match version {
        3 => base,
        2 => base / 2,
        _ => base / 4,
    };
    let samples = match (layer, version) {
        (1, _) => 384,
        (2, _) => 1152,
        (_, 3) => 1152,
        _ => 576,
    };
    let padding = ((h >> 9) & 1) as usize;
    let (bitrate, rate_u) = (kbps as usize * 1000, rate as usize);
    let length = match (layer, version) {
        (1, _) => (12 * bitrate / rate_u + padding) * 4,
        (3, v) if v != 3 => 72 * bitrate / rate_u + padding,
        _ => 144 * bitrate / rate_u + padding,
    };
    Some(Frame {
        length,
        version,
        layer,
        bitrate: kbps * 1000,
        rate,
        channels: if (h >> 6) & 3 == 3 { 1 } else { 2 },
        samples,
    })
}

/// MP3 (MPEG audio): past an ID3v2 tag, the first frame; its Xing/Info or VBRI header's
/// frame count when there is one, else the length over the first frame's bit rate.
fn mp3(bytes: &[u8]) -> Option<AudioInfo> {
    let mut start = 0usize;
    if bytes.starts_with(b"ID3") {
        let size = bytes.get(6..10)?;
        let tag = size
            .iter()
            .fold(0usize, |n, &b| (n << 7) | usize::from(b & 0x7f));
        let footer = if bytes.get(5)? & 0x10 != 0 { 10 } else { 0 };
        start = 10 + tag + footer;
    }
    // The first frame lies near the start; search a bounded window for a header whose next
    // frame header is where its length says (one match alone is easily chance).
    let window = bytes.get(start..)?;
    let limit = window.len().min(64 * 1024);
    let (at, first) = (0..limit).find_map(|i| {
        let f = frame(&window[i..])?;
        // The next frame must follow where this one ends (unless the bytes end first).
        let next = i + f.length;
        (next + 4 > window.len() || frame(&window[next..]).is_some()).then_some((i, f))
    })?;
    let offset = start + at;
    let name = match (first.version, first.layer) {
        (3, 3) => "MP3".to_string(),
        (_, 3) => "MP3 (MPEG-2)".to_string(),
        (_, layer) => format!("MPEG audio layer {layer}"),
    };
    // Xing/Info lies after the side information; VBRI 32 bytes after the header.
    let side = match (first.version == 3, first.channels) {
        (true, 1) => 17,
        (true, _) => 32,
        (false, 1) => 9,
        (false, _) => 17,
    };
    let frames = {
        let xing = offset + 4 + side;
        match bytes.get(xing..xing + 4) {
            Some(b"Xing") | Some(b"Info") if u32_be(bytes, xing + 4)? & 1 == 1 => {
                u32_be(bytes, xing + 8)
            }
            _ if bytes.get(offset + 36..offset + 40) == Some(b"VBRI") => {
                u32_be(bytes, offset + 36 + 14)
            }
            _ => None,
        }
    };
    let audio_bytes = bytes.len().saturating_sub(offset) as f64;
    let duration = match frames {
        Some(n) if first.rate > 0 => Some(Duration::from_secs_f64(
            f64::from(n) * f64::from(first.samples) / f64::from(first.rate),
        )),
        _ if first.bitrate > 0 => Some(Duration::from_secs_f64(
            audio_bytes * 8.0 / f64::from(first.bitrate),
        )),
        _ => None,
    };
    Some(AudioInfo {
        format: name,
        duration,
        sample_rate: Some(first.rate),
        channels: Some(first.channels),
        bitrate: frames.is_none().then_some(first.bitrate),
    })
}

/// The players tried in order when the config names none: (program, its arguments before
/// the file, whether it plays more than WAV).
const PLAYERS: &[(&str, &[&str], bool)] = &[
    ("paplay", &[], true),
    ("pw-play", &[], true),
    ("aplay", &["-q"], false),
    ("afplay", &[], true),
    (
        "ffplay",
        &["-nodisp", "-autoexit", "-loglevel", "error"],
        true,
    ),
];

/// The command that plays `file`: the config's `audio_player` (its `{file}` word replaced,
/// or the file added last), else the first player of [`PLAYERS`] found on `PATH` that
/// plays files of `extension` (`aplay` plays only WAV). `Err` says what to install or set.
pub fn player_command(
    configured: Option<&[String]>,
    extension: &str,
    file: &Path,
    path: Option<&std::ffi::OsStr>,
) -> Result<Vec<String>, String> {
    let file = file.display().to_string();
    if let Some(words) = configured {
        let mut command: Vec<String> = words.iter().map(|w| w.replace("{file}", &file)).collect();
        if !words.iter().any(|w| w.contains("{file}")) {
            command.push(file);
        }
        return Ok(command);
    }
    let wav = extension.eq_ignore_ascii_case("wav");
    for (program, args, any) in PLAYERS {
        if (*any || wav) && find_program(program, path).is_some() {
            let mut command = vec![program.to_string()];
            command.extend(args.iter().map(|a| a.to_string()));
            command.push(file);
            return Ok(command);
        }
    }
    Err(
        "No audio player found (paplay, pw-play, aplay, afplay or ffplay): install one, or set `audio_player = [\"mpv\", \"--no-video\"]` in the config (w saves the bytes)."
            .to_string(),
    )
}

/// `program`'s path on `path` (the `PATH` value), if it is there and a file.
fn find_program(program: &str, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A WAV file's bytes: `seconds` of silence.
    fn wav_bytes(rate: u32, channels: u16, bits: u16, seconds: f64) -> Vec<u8> {
        let block = channels * bits / 8;
        let byte_rate = rate * u32::from(block);
        let data = (f64::from(byte_rate) * seconds) as u32;
        let mut b = Vec::new();
        b.extend_from_slice(b"RIFF");
        b.extend_from_slice(&(36 + data).to_le_bytes());
        b.extend_from_slice(b"WAVEfmt ");
        b.extend_from_slice(&16u32.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&channels.to_le_bytes());
        b.extend_from_slice(&rate.to_le_bytes());
        b.extend_from_slice(&byte_rate.to_le_bytes());
        b.extend_from_slice(&block.to_le_bytes());
        b.extend_from_slice(&bits.to_le_bytes());
        b.extend_from_slice(b"data");
        b.extend_from_slice(&data.to_le_bytes());
        b.resize(b.len() + data as usize, 0);
        b
    }

    #[test]
    fn a_wav_header_tells_format_rate_channels_and_length() {
        let info = probe(&wav_bytes(44_100, 2, 16, 2.5)).unwrap();
        assert_eq!(info.summary(), "WAV PCM 16-bit · 44.1 kHz stereo · 2.5 s");
        let mono = probe(&wav_bytes(8_000, 1, 8, 0.5)).unwrap();
        assert_eq!(mono.summary(), "WAV PCM 8-bit · 8 kHz mono · 0.5 s");
    }

    #[test]
    fn an_mp3_without_a_vbr_header_is_timed_by_its_bit_rate() {
        // MPEG-1 layer III, 128 kbit/s, 44.1 kHz, stereo: 0xFFFB9000, after an ID3v2 tag.
        let mut b = b"ID3\x04\x00\x00\x00\x00\x00\x05hello".to_vec();
        let header = [0xFF, 0xFB, 0x90, 0x00];
        let body = 16_000usize; // one second at 128 kbit/s
        let mut audio = Vec::new();
        while audio.len() < body {
            audio.extend_from_slice(&header);
            audio.resize(audio.len() + 413, 0);
        }
        audio.truncate(body);
        b.extend_from_slice(&audio);
        let info = probe(&b).unwrap();
        assert_eq!(info.format, "MP3");
        assert_eq!(info.sample_rate, Some(44_100));
        assert_eq!(info.channels, Some(2));
        assert_eq!(info.summary(), "MP3 · 44.1 kHz stereo 128 kbit/s · 1.0 s");
    }

    #[test]
    fn an_mp3_with_a_xing_header_is_timed_by_its_frame_count() {
        let mut b = vec![0xFF, 0xFB, 0x90, 0x00];
        b.resize(4 + 32, 0);
        b.extend_from_slice(b"Xing");
        b.extend_from_slice(&1u32.to_be_bytes());
        b.extend_from_slice(&383u32.to_be_bytes()); // 383 × 1152 / 44100 ≈ 10.0 s
        b.resize(417, 0);
        b.extend_from_slice(&[0xFF, 0xFB, 0x90, 0x00]);
        b.resize(2000, 0);
        let info = probe(&b).unwrap();
        assert_eq!(info.duration.map(|d| d.as_secs()), Some(10));
        assert_eq!(info.bitrate, None, "a VBR file has no one bit rate");
    }

    /// An Ogg page holding `packet`, at granule position `granule`.
    fn ogg_page(packet: &[u8], granule: u64) -> Vec<u8> {
        let mut b = b"OggS\x00\x02".to_vec();
        b.extend_from_slice(&granule.to_le_bytes());
        b.extend_from_slice(&[0; 12]); // serial, sequence, checksum
        b.push(1);
        b.push(packet.len() as u8);
        b.extend_from_slice(packet);
        b
    }

    #[test]
    fn ogg_vorbis_and_opus_are_timed_by_the_last_granule_position() {
        let mut ident = b"\x01vorbis\x00\x00\x00\x00".to_vec();
        ident.push(2);
        ident.extend_from_slice(&48_000u32.to_le_bytes());
        ident.resize(30, 0);
        let mut file = ogg_page(&ident, 0);
        file.extend(ogg_page(b"audio", 48_000 * 3));
        assert_eq!(
            probe(&file).unwrap().summary(),
            "Ogg Vorbis · 48 kHz stereo · 3.0 s"
        );
        let mut head = b"OpusHead\x01\x01".to_vec();
        head.extend_from_slice(&312u16.to_le_bytes());
        head.extend_from_slice(&16_000u32.to_le_bytes());
        head.resize(19, 0);
        let mut opus = ogg_page(&head, 0);
        opus.extend(ogg_page(b"audio", 312 + 48_000 * 90));
        assert_eq!(
            probe(&opus).unwrap().summary(),
            "Ogg Opus · 16 kHz mono · 1:30"
        );
    }

    #[test]
    fn flac_streaminfo_is_read() {
        let mut b = b"fLaC\x00\x00\x00\x22".to_vec();
        let mut s = [0u8; 34];
        // 44100 Hz, 2 channels, 16 bits, 441000 samples (10 s).
        let rate: u32 = 44_100;
        s[10] = (rate >> 12) as u8;
        s[11] = (rate >> 4) as u8;
        s[12] = ((rate & 0xf) as u8) << 4 | (1 << 1);
        s[13] = 15 << 4;
        s[14..18].copy_from_slice(&441_000u32.to_be_bytes());
        b.extend_from_slice(&s);
        assert_eq!(
            probe(&b).unwrap().summary(),
            "FLAC 16-bit · 44.1 kHz stereo · 10.0 s"
        );
    }

    #[test]
    fn junk_and_cut_headers_tell_nothing_or_little() {
        assert_eq!(probe(b""), None);
        assert_eq!(probe(b"hello, world"), None);
        assert_eq!(probe(&wav_bytes(44_100, 2, 16, 1.0)[..20]), None);
        let cut_ogg = ogg_page(b"\x01vorbis\x00\x00", 0);
        assert_eq!(probe(&cut_ogg), None, "an identification header cut short");
        assert_eq!(probe(&cut_ogg[..30]).unwrap().summary(), "Ogg");
        assert_eq!(probe(b"RIFF\xff\xff\xff\xffWAVEfmt \xff\xff\xff\xff"), None);
    }

    proptest::proptest! {
        #[test]
        fn probing_any_bytes_never_panics(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600)) {
            let _ = probe(&bytes);
            let mut wav = wav_bytes(8_000, 1, 8, 0.01);
            wav.truncate(12);
            wav.extend_from_slice(&bytes);
            let _ = probe(&wav);
            let mut ogg = b"OggS".to_vec();
            ogg.extend_from_slice(&bytes);
            let _ = probe(&ogg);
            let mut mp3 = b"ID3".to_vec();
            mp3.extend_from_slice(&bytes);
            let _ = probe(&mp3);
        }
    }

    #[test]
    fn the_player_is_the_configured_one_or_the_first_found() {
        let dir = tempfile::tempdir().unwrap();
        let file = Path::new("/tmp/x.mp3");
        let configured = vec!["mpv".to_string(), "--no-video".to_string()];
        assert_eq!(
            player_command(Some(&configured), "mp3", file, None).unwrap(),
            ["mpv", "--no-video", "/tmp/x.mp3"]
        );
        let placed = vec!["play".to_string(), "{file}".to_string(), "-q".to_string()];
        assert_eq!(
            player_command(Some(&placed), "mp3", file, None).unwrap(),
            ["play", "/tmp/x.mp3", "-q"]
        );
        std::fs::write(dir.path().join("aplay"), "").unwrap();
        let path = dir.path().as_os_str();
        // aplay plays WAV only.
        assert_eq!(
            player_command(None, "wav", Path::new("/tmp/x.wav"), Some(path)).unwrap(),
            ["aplay", "-q", "/tmp/x.wav"]
        );
        let none = player_command(None, "mp3", file, Some(path)).unwrap_err();
        assert!(none.contains("audio_player"), "{none}");
        std::fs::write(dir.path().join("ffplay"), "").unwrap();
        assert_eq!(
            player_command(None, "mp3", file, Some(path)).unwrap()[0],
            "ffplay"
        );
    }
}
