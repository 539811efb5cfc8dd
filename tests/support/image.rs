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
    ensure!(
        counts.len() >= 16,
        "only {} colours: the window looks blank",
        counts.len()
    );
    ensure!(
        dominant * 100 < total * 97,
        "one colour covers {}% of the window: it looks blank",
        dominant * 100 / total
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_blank_image_is_rejected() {
        let mut png_bytes = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut png_bytes, 640, 480);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().unwrap();
            writer.write_image_data(&vec![255; 640 * 480 * 3]).unwrap();
        }
        let error = super::assert_rendered(&png_bytes).unwrap_err();
        assert!(error.to_string().contains("blank"), "{error}");
    }
}
