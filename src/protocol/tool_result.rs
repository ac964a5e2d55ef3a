//! A tool's result as the engine may see it: whole and redacted, or not at all.

use serde_json::Value;

/// Largest tool result (as JSON) handed to the engine: results are kept whole or not at all
/// (a cut YAML file would read as a different one), and the event goes into the log.
pub const MAX_ENGINE_RESPONSE: usize = 16 * 1024;

/// The tool's result as the engine sees it: redacted, and `null` when larger than
/// [`MAX_ENGINE_RESPONSE`].
pub fn result_for_engine(response: Option<&Value>) -> Value {
    let Some(v) = response else {
        return Value::Null;
    };
    // Measure before copying: a result can be megabytes.
    let mut size = SizeCounter(0);
    if serde_json::to_writer(&mut size, v).is_err() || size.0 > MAX_ENGINE_RESPONSE {
        return Value::Null;
    }
    let mut v = v.clone();
    crate::store::redact::redact_value(&mut v);
    v
}

/// Counts bytes written, stopping early past the limit.
struct SizeCounter(usize);

impl std::io::Write for SizeCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        if self.0 > MAX_ENGINE_RESPONSE {
            return Err(std::io::Error::other("too large"));
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
