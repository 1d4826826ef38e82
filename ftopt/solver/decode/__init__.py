"""From the model's counts to a plan: copies dealt onto servers, right-sized RAM and disk, bills of
materials and the fabric, and the per-copy figures of the `Plan`."""
