/** A labelled on/off switch: a real checkbox (role="switch"), so the keyboard and assistive technology work as usual. */
export function Switch(props: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** extra attributes the tests select by, e.g. data-setting */
  attributes?: Record<string, string>;
  disabled?: boolean;
}) {
  return (
    <label class="switch">
      <input
        type="checkbox"
        role="switch"
        checked={props.checked}
        disabled={props.disabled}
        onChange={(event) => props.onChange(event.currentTarget.checked)}
        {...props.attributes}
      />
      <span class="switch-track" aria-hidden="true" />
      <span class="switch-label">{props.label}</span>
    </label>
  );
}
