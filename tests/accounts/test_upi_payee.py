"""The collection VPA of a pound, or else of its district: validated, and the pound's first."""

import pytest
from django.core.exceptions import ValidationError

from accounts.upi import collection_payee
from kernel.upi import UpiPayee


def test_no_vpa_anywhere_means_no_payee(pound):
    assert collection_payee(pound) is None


def test_the_district_collects_when_the_pound_has_no_vpa(pound):
    district = pound.district
    district.upi_vpa, district.upi_payee_name = "dm.lucknow@sbi", "District Magistrate Lucknow"
    district.full_clean()
    district.save()
    pound.refresh_from_db()
    assert collection_payee(pound) == UpiPayee("dm.lucknow@sbi", "District Magistrate Lucknow")


def test_the_pound_s_own_vpa_comes_first(pound):
    pound.district.upi_vpa, pound.district.upi_payee_name = "dm@sbi", "DM"
    pound.upi_vpa, pound.upi_payee_name = "pound.one@okaxis", "Kanji House One"
    pound.full_clean()
    assert collection_payee(pound) == UpiPayee("pound.one@okaxis", "Kanji House One")


def test_a_vpa_that_is_not_name_at_handle_is_refused(pound):
    pound.upi_vpa, pound.upi_payee_name = "pound one", "Kanji House One"
    with pytest.raises(ValidationError) as caught:
        pound.full_clean()
    assert "upi_vpa" in caught.value.message_dict


def test_a_vpa_needs_its_payee_name(pound):
    pound.upi_vpa = "pound.one@okaxis"
    with pytest.raises(ValidationError) as caught:
        pound.full_clean()
    assert "upi_payee_name" in caught.value.message_dict
