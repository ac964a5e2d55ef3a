//! The dashboard: model updates, screens, replay, the demo and the docs images.

#[path = "../support/mod.rs"]
mod support;

mod choice;
mod demo;
mod docs_images;
mod e2e;
mod feed;
mod files_move;
mod interaction;
mod notifications;
mod pick;
mod replay;
mod screens;
mod sequences;
mod update;
mod usability;
