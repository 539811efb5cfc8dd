//! Checks on screenshots: a rendered window has many colours; a blank one has one or two.

use anyhow::{ensure, Context, Result};

pub fn assert_rendered(png_bytes: &[u8]) -> Result<()> {
    let decoder = png::Decoder::new(png_bytes);
    let mut reader = decoder.read_info().context("the screenshot is not a PNG")?;
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels)?;
    let channels = frame.color_type.samples();
    ensure!(
        frame.bit_depth == png::BitDepth::Eight,
        "unexpected bit depth {:?}",
        frame.bit_depth
    );
    ensure!(
        frame.width >= 400 && frame.height >= 300,
        "tiny screenshot {}x{}",
        frame.width,
        frame.height
    );

    let mut counts = std::collections::HashMap::<[u8; 3], usize>::new();
    for pixel in pixels[..frame.buffer_size()].chunks_exact(channels) {
        let rgb = match pixel {
            [r, g, b, ..] => [*r, *g, *b],
            [gray, ..] => [*gray; 3],
            [] => continue,
        };
        *counts.entry(rgb).or_default() += 1;
    }
    let total = (frame.width * frame.height) as usize;
    let dominant = counts.values().copied().max().unwrap_or(0);
    // A blank window is one or two colours. A sparse but rendered screen (the start view is
    // ~98% background) still has anti-aliased text: dozens of colours over a few % of pixels.
    ensure!(
        counts.len() >= 32,
        "only {} colours: the window looks blank",
        counts.len()
    );
    ensure!(
        (total - dominant) * 1000 >= total * 5,
        "one colour covers {:.1}% of the window: it looks blank",
        dominant as f64 * 100.0 / total as f64
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    fn png(pixels: &[u8]) -> Vec<u8> {
        let mut png_bytes = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut png_bytes, 640, 480);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().unwrap();
            writer.write_image_data(pixels).unwrap();
        }
        png_bytes
    }

    #[test]
    fn a_blank_image_is_rejected() {
        let error = super::assert_rendered(&png(&vec![255; 640 * 480 * 3])).unwrap_err();
        assert!(error.to_string().contains("blank"), "{error}");
    }

    #[test]
    fn a_sparse_screen_with_text_is_accepted() {
        // White, with a 120×30 strip of 64 grey levels (like anti-aliased text): ~1% of pixels.
        let mut pixels = vec![255; 640 * 480 * 3];
        for y in 200..230 {
            for x in 260..380 {
                let level = ((x * 7 + y * 3) % 64 * 3) as u8;
                let at = (y * 640 + x) * 3;
                pixels[at..at + 3].copy_from_slice(&[level, level, level]);
            }
        }
        super::assert_rendered(&png(&pixels)).unwrap();
    }
}
