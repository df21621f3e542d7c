// A registered section: it may import only the page contract.
import type { PageSection } from "@stave/page-contract";

interface Fields {
  note?: string | null;
  days?: { day?: string | null; hours?: string | null }[] | null;
}

export function OpeningHours(
  { section, fields, headingId }: {
    section: PageSection;
    fields: Fields;
    headingId: string;
  },
) {
  return (
    <div class={`hours hours-${section.variant}`}>
      <dl>
        {(fields.days ?? []).map((d) => (
          <div>
            <dt>{d.day}</dt>
            <dd>{d.hours}</dd>
          </div>
        ))}
      </dl>
      {fields.note ? <p aria-describedby={headingId}>{fields.note}</p> : null}
    </div>
  );
}
