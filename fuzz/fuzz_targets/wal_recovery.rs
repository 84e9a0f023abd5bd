//! WAL recovery from arbitrary log bytes: a segment (valid frames, patched as the input says,
//! the first byte picking how many, and with bit 6 flagging every other frame as unsynced) replayed by `Wal::open`. Ends in an error or a recovery
//! whose replayed batches have rising sequence numbers.
#![no_main]

mod common;

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use ocgraph_core::update::wal::segment_name;
use ocgraph_core::update::wal_frame::{encode_frame, FLAG_UNSYNCED};
use ocgraph_core::update::{Replay, StdLogFs, Wal, WalItem, WalOptions};

fuzz_target!(|data: &[u8]| {
    common::inline_rayon();
    let Some((&mode, patches)) = data.split_first() else { return };
    let dir = common::scratch().join("wal");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("wal dir");
    let mut log = Vec::new();
    let mut frame = Vec::new();
    for seq in 1..=(mode % 8) as u64 {
        let items = [
            WalItem::AddEdge { src: seq as u32, dst: 2, weight: 0.5 },
            WalItem::RemoveVertex { v: 3 },
            WalItem::SetLabel { v: 4, label: seq as u32 },
        ];
        let flags = if mode & 0x40 != 0 && seq % 2 == 0 { FLAG_UNSYNCED } else { 0 };
        encode_frame(seq, flags, &items[..(seq % 3 + 1) as usize], &mut frame);
        log.extend_from_slice(&frame);
    }
    if mode & 0x80 != 0 {
        log.extend_from_slice(patches);
    } else {
        common::patch(&mut log, patches);
    }
    std::fs::write(dir.join(segment_name(0)), &log).expect("write segment");
    let mut last = 0;
    let opened =
        Wal::open(&dir, WalOptions::default(), Arc::new(StdLogFs), (0, 0), |seq, _items, _unsynced| {
            assert!(seq > last, "batches replay in rising order");
            last = seq;
            Ok(Replay::Applied)
        });
    if let Ok((_, report)) = opened {
        assert_eq!(report.last_seq, last);
    }
});
